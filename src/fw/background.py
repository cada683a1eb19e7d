"""Serve an ASGI application from a daemon thread, on a socket the caller has already bound.

The development identity provider and the test issuer are real HTTP servers that the application
reaches over loopback, exactly as it would reach a production provider. Binding before serving
lets the caller learn its port (port 0 picks a free one) before anything listens; ``start``
returns only once the server answers, so nothing races the first request.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Any

import uvicorn
from starlette.types import ASGIApp


class BackgroundServer:
    """One uvicorn server on ``sock``; ``what`` names it in the error when it cannot start."""

    def __init__(self, app: ASGIApp, sock: socket.socket, *, what: str, name: str, **options: Any) -> None:
        self._socket = sock
        self._what = what
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", **options))
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
        self._server.should_exit = True
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
