"""Deadlines for the awaits a request makes, kept by one timer instead of one timer each.

``asyncio.timeout`` schedules a timer handle when its block starts and cancels it when the block
ends: a push onto the event loop's heap, among the thousands of cancelled handles a busy loop
holds until it purges them. On a signed-in request served from Redis that was more than all fw
spent beyond a hand-written session (about 4% of the request's instructions,
``benchmarks/signed_in_page.py --instructions``), and every request with a body paid it again
for the body's deadline. A
:class:`Watchdog` notes the task and its deadline in a dict instead, and one timer, scheduled
only while a block is in flight, cancels every task past its deadline each quarter of the
watchdog's ``seconds``.

Under ``with watchdog:`` (``seconds`` from now) or ``with watchdog.until(deadline)`` (a time on
the loop's clock, at most ``seconds`` away) a block past its deadline raises ``TimeoutError`` as
under ``asyncio.timeout`` (up to a quarter of ``seconds`` later); a cancellation from anywhere
else stays a ``CancelledError``. One task runs one block at a time under a watchdog.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any

Task = asyncio.Task[Any]


class Watchdog:
    """Bounds each ``with`` block of a running task (see the module)."""

    __slots__ = ("_expired", "_running", "_timers", "seconds")

    def __init__(self, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError("a watchdog's deadline must be above zero")
        self.seconds = seconds
        #: Each task in a block: its deadline on its loop's clock, and its cancellation count
        #: when the block began (what tells the watchdog's cancellation from another).
        self._running: dict[Task, tuple[float, int]] = {}
        #: Tasks the watchdog cancelled, until their block ends.
        self._expired: set[Task] = set()
        #: The timer on each event loop with a block in flight.
        self._timers: dict[asyncio.AbstractEventLoop, asyncio.TimerHandle] = {}

    def __enter__(self) -> None:
        self.begin(None)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.end(kind, error)

    def until(self, deadline: float) -> Until:
        """A block ending by ``deadline`` (the loop's ``time()``), for a deadline shared by several
        blocks, such as a whole request body's."""
        return Until(self, deadline)

    def begin(self, deadline: float | None) -> None:
        """The current task's block starts (``None``: its deadline is ``seconds`` from now)."""
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no running event loop
            task = None
        if task is None:
            raise RuntimeError("a Watchdog bounds a block of a running asyncio task")
        if task in self._running:
            raise RuntimeError("a task runs one block at a time under a Watchdog")
        loop = task.get_loop()
        if deadline is None:
            deadline = loop.time() + self.seconds
        self._running[task] = (deadline, task.cancelling())
        if loop not in self._timers:
            self._forget_closed_loops()
            self._timers[loop] = loop.call_later(self.seconds / 4, self._check, loop)

    def end(self, kind: type[BaseException] | None, error: BaseException | None) -> None:
        """The current task's block ends, with ``kind`` raised (or ``None``); raises ``TimeoutError``
        in place of the watchdog's own cancellation."""
        task = asyncio.current_task()
        assert task is not None  # the task that began the block
        _, cancelling = self._running.pop(task)
        if task in self._expired:
            self._expired.discard(task)
            # The watchdog's cancellation is taken back; one from elsewhere is still counted.
            if task.uncancel() <= cancelling and kind is asyncio.CancelledError:
                raise TimeoutError from error

    def _forget_closed_loops(self) -> None:
        """Drop the timers and tasks of event loops closed before their timer ran (a test's
        loop, say), so that a watchdog shared by many loops one after another keeps none alive."""
        for loop in [loop for loop in self._timers if loop.is_closed()]:
            del self._timers[loop]
        for task in [task for task in self._running if task.get_loop().is_closed()]:
            del self._running[task]
            self._expired.discard(task)

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        """Cancel this loop's tasks past their deadline; look again while any block runs on it."""
        del self._timers[loop]
        now = loop.time()
        waiting = False
        for task, (deadline, _) in list(self._running.items()):
            if task.get_loop() is not loop:
                continue
            if deadline <= now and task not in self._expired:
                self._expired.add(task)
                task.cancel()
            else:
                waiting = True
        if waiting:
            self._timers[loop] = loop.call_later(self.seconds / 4, self._check, loop)


class Until:
    """A :class:`Watchdog` block ending by a fixed deadline (:meth:`Watchdog.until`)."""

    __slots__ = ("deadline", "watchdog")

    def __init__(self, watchdog: Watchdog, deadline: float) -> None:
        self.watchdog = watchdog
        self.deadline = deadline

    def __enter__(self) -> None:
        self.watchdog.begin(self.deadline)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.watchdog.end(kind, error)
