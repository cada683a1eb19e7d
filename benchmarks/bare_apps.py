"""The same bare route in fw, Starlette and raw ASGI, for ``bare_route.py``.

``GET /hello`` answers ``{"hello": "world"}`` with nothing read from the request: what is
measured is each framework's own cost per request (routing, middleware, request and response
objects). Run one with ``uvicorn bare_apps:<name>`` from this folder.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

ANSWER = {"hello": "world"}
BODY = b'{"hello":"world"}'


def make_fw() -> Any:
    import fw

    app = fw.App()

    @app.route("GET /hello")
    async def hello(request: fw.Request) -> fw.Response:
        return fw.JSONResponse(ANSWER)

    return app


def make_starlette() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def hello(request: Request) -> JSONResponse:
        return JSONResponse(ANSWER)

    return Starlette(routes=[Route("/hello", hello, methods=["GET"])])


async def raw_asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The floor: an ASGI callable answering the same bytes, with no framework at all."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["path"] != "/hello" or scope["method"] not in ("GET", "HEAD"):
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", b"17"), (b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": BODY})


fw_app = make_fw()
starlette_app = make_starlette()
