"""The application process of the limit tests: the binding fixture App under uvicorn.

Run as ``python limits_server.py <config.toml>``; prints ``pid=<n> port=<n>`` once listening
on a free 127.0.0.1 port. ``GET /ping`` answers at once, to show the server stays responsive.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from binding.bindapp.handlers import app

import fw
from fw import configuration


@app.route("GET /ping")
async def ping(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({"pong": True})


def main() -> None:
    configuration.parse_config(["--config-path", sys.argv[1]])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    original_startup = server.startup

    async def announce(sockets: list[socket.socket] | None = None) -> None:
        await original_startup(sockets)
        print(f"pid={os.getpid()} port={sock.getsockname()[1]}", flush=True)

    server.startup = announce  # type: ignore[method-assign]
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
