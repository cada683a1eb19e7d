"""Fixtures for the operations tests: an App served by a real uvicorn (its lifespan on, so every
pillar starts as under ``fw run``) on a free loopback port."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn


@contextlib.contextmanager
def served(app: object, *, startup_seconds: float = 60) -> Iterator[str]:
    """``app`` under uvicorn (lifespan on) in a thread on a free 127.0.0.1 port; its base URL.

    Build the App inside the ``configured`` block it reads; the server stops when the block
    ends (its lifespan shutdown closes what the App opened).
    """
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, lifespan="on", log_level="warning", access_log=False)  # type: ignore[arg-type]
    server = uvicorn.Server(config)

    def run() -> None:
        with contextlib.suppress(SystemExit):  # uvicorn exits so when the App refuses to start
            server.run(sockets=[sock])

    thread = threading.Thread(target=run, name="fw-health-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_seconds
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the App did not start (its startup refused; see the log above)")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the App did not start within {startup_seconds} s")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
