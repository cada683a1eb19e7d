"""The application process of the limit tests: the binding fixture App under uvicorn.

Run as ``python limits_server.py <config.toml>``; prints ``pid=<n> port=<n>`` once listening
on a free 127.0.0.1 port. ``GET /ping`` answers at once, to show the server stays responsive.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from binding.bindapp.handlers import app

import fw
from fw import configuration
from fw.background import serve_announced


@app.route("GET /ping")
async def ping(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({"pong": True})


def main() -> None:
    configuration.parse_config(["--config-path", sys.argv[1]])
    serve_announced(app)


if __name__ == "__main__":
    main()
