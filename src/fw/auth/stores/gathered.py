"""Reads made while the store is busy, gathered: one call to the store a turn of the event loop.

A server under load starts several requests in one turn of its event loop (every connection that
had a request ready), and each signed-in one reads its session before anything else is awaited.
Sent one by one, each read pays the client's whole per-command cost (a pooled connection taken
and given back, the command packed, the reply parsed) and wakes the store's server once. A
:class:`GatheredReads` sends a read at once, by itself, while no other read is waiting for the
store (a lone request waits for nothing); a read made while one is, joins the batch of its turn
of the loop, sent as one call (Redis's ``MGET``) when that turn is over. Every reader gets the
value its own read would have returned.

What a single read would raise, every reader of a batch raises, each its own exception
(``failure`` makes one per reader); a reader that stops waiting (cancelled) takes nothing from the
others. Every call is bounded by ``bound`` (a :class:`~fw.watchdog.Watchdog`): a batch is sent
from a task of its own, so a store that never answers fails each of its readers by that deadline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from fw.watchdog import Watchdog

Value = TypeVar("Value")
Result = TypeVar("Result")

#: The most reads one batch carries; a busier turn sends more than one.
MOST_PER_BATCH = 128


class _Batch(Generic[Value]):
    """The reads gathered in one turn of ``loop``."""

    __slots__ = ("keys", "loop", "waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.keys: list[str] = []
        self.waiters: list[asyncio.Future[Value]] = []


class GatheredReads(Generic[Value]):
    """``read(key)`` for many readers, answered by ``fetch_one(key)`` or ``fetch(keys)`` (see the module).

    ``fetch_one`` returns the key's value: a lone read (Redis's ``GET``, a little cheaper for the
    client than an ``MGET`` of one key). ``fetch`` returns one value per key, in order.
    ``failure(error)`` is what a reader raises when either raised ``error``, an exception of
    ``failures``; any other exception is a bug: a lone read raises it as it is, and it reaches
    each reader of a batch as a ``RuntimeError`` caused by it.
    """

    def __init__(
        self,
        fetch_one: Callable[[str], Awaitable[Value]],
        fetch: Callable[[list[str]], Awaitable[Sequence[Value]]],
        *,
        failures: tuple[type[BaseException], ...],
        failure: Callable[[BaseException], BaseException],
        bound: Watchdog,
    ) -> None:
        self._fetch_one = fetch_one
        self._fetch = fetch
        self._failures = failures
        self._failure = failure
        self._bound = bound
        #: Calls waiting for the store: while there are none, a read goes at once.
        self._in_flight = 0
        self._open: _Batch[Value] | None = None
        #: Batches being sent: the event loop keeps only a weak reference to a task.
        self._sending: set[asyncio.Task[None]] = set()

    async def read(self, key: str) -> Value:
        if not self._in_flight:
            try:
                return await self._waited(self._fetch_one(key))
            except self._failures as error:
                raise self._failure(error) from None
        loop = asyncio.get_running_loop()
        batch = self._open
        if batch is None or batch.loop is not loop or len(batch.keys) >= MOST_PER_BATCH:
            batch = self._open = _Batch(loop)
            loop.call_soon(self._close, batch)  # runs once every read of this turn has joined
        waiter: asyncio.Future[Value] = loop.create_future()
        batch.keys.append(key)
        batch.waiters.append(waiter)
        return await waiter

    async def _waited(self, call: Awaitable[Result]) -> Result:
        """``call`` (a lone read or a batch), bounded by the watchdog, counted in flight while it waits."""
        self._in_flight += 1
        try:
            with self._bound:
                return await call
        finally:
            self._in_flight -= 1

    def _close(self, batch: _Batch[Value]) -> None:
        """The turn is over: the batch is sent, from a task of its own."""
        if self._open is batch:
            self._open = None
        task = batch.loop.create_task(self._send(batch))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, batch: _Batch[Value]) -> None:
        waiters = batch.waiters
        try:
            values = await self._waited(self._fetch(batch.keys))
            if len(values) != len(batch.keys):
                raise RuntimeError(f"{len(values)} values came back for {len(batch.keys)} keys")
        except Exception as error:
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_exception(self._each(error))
            return
        except BaseException:  # the batch's task was cancelled: the event loop is closing
            for waiter in waiters:
                waiter.cancel()
            raise
        for waiter, value in zip(waiters, values, strict=True):
            if not waiter.done():
                waiter.set_result(value)

    def _each(self, error: Exception) -> BaseException:
        """A reader's own exception for the batch's ``error``."""
        if isinstance(error, self._failures):
            return self._failure(error)
        problem = RuntimeError(f"a gathered read failed: {error!r}")
        problem.__cause__ = error
        return problem
