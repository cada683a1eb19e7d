"""Serve an ASGI application from a daemon thread, on a socket the caller has already bound.

The development identity provider and the test issuer are real HTTP servers that the application
reaches over loopback, exactly as it would reach a production provider. Binding before serving
lets the caller learn its port (port 0 picks a free one) before anything listens; ``start``
returns only once the server answers, so nothing races the first request, and ``stop`` returns
as soon as the connections are closed (a test starts and stops one per test).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
import time
from typing import Any

import uvicorn
from starlette.types import ASGIApp

#: How often a stopping server looks whether its last connection has closed.
_CLOSE_POLL = 0.002


class _PromptServer(uvicorn.Server):
    """uvicorn's server, stopping as soon as it is asked rather than on its next tick.

    uvicorn notices ``should_exit`` on a 0.1 s tick and then sleeps another 0.1 s before looking
    at its connections, so each stop cost about 0.2 s (half of a small test suite's time). Here
    :meth:`wake` ends the tick's wait at once, and :meth:`shutdown` closes the same things in
    the same order as uvicorn's, but waits for the connections by looking every few milliseconds.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._fw_loop: asyncio.AbstractEventLoop | None = None
        self._fw_stopping: asyncio.Event | None = None

    async def main_loop(self) -> None:
        self._fw_stopping = asyncio.Event()
        self._fw_loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):  # the date header, should_exit: uvicorn's own tick
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._fw_stopping.wait(), 0.1)

    def wake(self) -> None:
        """Ask the server to exit now; callable from any thread, before or after it started."""
        self.should_exit = True
        loop, stopping = self._fw_loop, self._fw_stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            # RuntimeError: the loop closed in between, so the server has already finished.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()  # an idle keep-alive connection closes, a busy one after its response
        loop = asyncio.get_running_loop()
        grace = self.config.timeout_graceful_shutdown
        deadline = None if grace is None else loop.time() + grace
        while self.server_state.connections or self.server_state.tasks:
            if deadline is not None and loop.time() > deadline:
                for task in self.server_state.tasks:
                    task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
                break
            await asyncio.sleep(_CLOSE_POLL)
        for server in self.servers:
            await server.wait_closed()
        await self.lifespan.shutdown()


class BackgroundServer:
    """One uvicorn server on ``sock``; ``what`` names it in the error when it cannot start."""

    def __init__(self, app: ASGIApp, sock: socket.socket, *, what: str, name: str, **options: Any) -> None:
        self._socket = sock
        self._what = what
        self._server = _PromptServer(uvicorn.Config(app, log_level="warning", lifespan="off", **options))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=name, daemon=True
        )

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"{self._what} did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        """Ask the server to finish, wait for it, and release the socket (also when never started)."""
        self._server.wake()
        if self._thread.ident is not None:
            self._thread.join(timeout=10)
        self._socket.close()


def serve_announced(app: ASGIApp) -> None:
    """Serve ``app`` in this process on a free 127.0.0.1 port; print ``pid=<n> port=<n>`` once listening.

    How a test or benchmark that starts an app in a child process learns where it serves: the
    port is free by construction and the line comes only after uvicorn's startup, so the first
    request cannot race it.
    """
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    original_startup = server.startup

    async def announce(sockets: list[socket.socket] | None = None) -> None:
        await original_startup(sockets)
        print(f"pid={os.getpid()} port={sock.getsockname()[1]}", flush=True)

    server.startup = announce  # type: ignore[method-assign]
    server.run(sockets=[sock])
