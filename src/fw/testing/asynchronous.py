"""``lifespan(app)``: an App started and stopped around an async test, as a server would.

``httpx2.AsyncClient(transport=httpx2.ASGITransport(app))`` sends requests straight to the App
in the test's own event loop, but runs no ASGI lifespan: the App would start (and parse its
configuration) on the first request and never stop, so its stores stay open. This runs the
lifespan protocol itself, in the test's loop::

    with fw.testing.configured(toml=CONFIG):
        async with fw.testing.lifespan(app), httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app), base_url="http://localhost:8000"
        ) as client:
            assert (await client.get("/")).status_code == 200

A refusal to start raises what the App raised (``fw.ConfigError``, ``fw.StartupError``) at the
``async with`` line, as Starlette's ``TestClient`` does at its ``with``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from starlette.types import ASGIApp, Message

#: The lifespan scope a server sends (ASGI 3.0, lifespan spec 2.0).
_SCOPE = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}


class _Lifespan:
    """One run of an application's lifespan: the queues both ways and the task running it."""

    def __init__(self, app: ASGIApp) -> None:
        self.to_app: asyncio.Queue[Message] = asyncio.Queue()
        self.from_app: asyncio.Queue[Message] = asyncio.Queue()
        self.task: asyncio.Task[None] = asyncio.ensure_future(
            app(dict(_SCOPE), self.to_app.get, self.from_app.put)
        )

    async def step(self, event: str) -> None:
        """Send ``lifespan.<event>`` and wait for the answer; raise what the App raised on failure."""
        await self.to_app.put({"type": f"lifespan.{event}"})
        getter = asyncio.ensure_future(self.from_app.get())
        await asyncio.wait({getter, self.task}, return_when=asyncio.FIRST_COMPLETED)
        if not getter.done():
            getter.cancel()
            self.task.result()  # the application's own error, if it raised one
            raise RuntimeError(f"the application ended its lifespan without answering lifespan.{event}")
        answer = getter.result()
        if answer["type"] == f"lifespan.{event}.complete":
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.task), 5)  # fw raises after reporting
        if self.task.done() and not self.task.cancelled() and self.task.exception() is not None:
            self.task.result()
        raise RuntimeError(f"the application refused lifespan.{event}: {answer.get('message', '')}")

    async def close(self) -> None:
        if not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


@contextlib.asynccontextmanager
async def lifespan(app: ASGIApp) -> AsyncIterator[None]:
    """Start ``app`` (ASGI ``lifespan.startup``) before the block and stop it after, even when
    the block raises; for async tests that send requests through ``httpx2.ASGITransport``."""
    run = _Lifespan(app)
    try:
        await run.step("startup")
        try:
            yield
        finally:
            await run.step("shutdown")
    finally:
        await run.close()
