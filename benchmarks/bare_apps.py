"""The same bare route in fw, Starlette and raw ASGI, for ``bare_route.py``.

``GET /hello`` answers ``{"hello": "world"}`` with nothing read from the request: what is
measured is each framework's own cost per request (routing, middleware, request and response
objects). Run one with ``uvicorn bare_apps:<name>`` from this folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

# FW_BENCH_SRC points at another fw source tree (an older commit) to measure it the same way.
sys.path.insert(0, os.environ.get("FW_BENCH_SRC") or str(Path(__file__).resolve().parents[1] / "src"))

from starlette.requests import Request
from starlette.responses import JSONResponse

from fw import JSONResponse as FwJSONResponse

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


async def starlette_objects(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The floor plus the objects every Starlette handler receives and returns: ``Request`` in,
    Starlette's ``JSONResponse`` out (lifespan and other paths as the floor answers them)."""
    if scope["type"] != "http" or scope["path"] != "/hello":
        await raw_asgi(scope, receive, send)
        return
    Request(scope, receive, send)
    await JSONResponse(ANSWER)(scope, receive, send)


async def fw_objects(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The floor plus the objects an fw handler receives and returns: ``Request`` in,
    ``fw.JSONResponse`` out, with no router, middleware or error boundary: what fw's core would
    cost if it cost nothing."""
    if scope["type"] != "http" or scope["path"] != "/hello":
        await raw_asgi(scope, receive, send)
        return
    Request(scope, receive, send)
    await FwJSONResponse(ANSWER)(scope, receive, send)


fw_app = make_fw()
starlette_app = make_starlette()


def make_lean_prototype(app: Any) -> Any:
    """A prototype of a leaner fw core path, for the plan in docs/performance.md; not fw code.

    One ASGI callable in front of the App: a fixed-path route found in a dict is called
    directly (``Request`` in, ``Response`` out, one ``try`` rendering errors as fw's problem
    documents) with no middleware layers between the server and the handler; anything else
    (a parameterised path, a body, any other scope) goes to the App unchanged. It shows what
    collapsing ServerErrorMiddleware, the exception middleware and the router into one layer
    could reach; a real core would also have to run the middleware an App has (auth).
    """
    from starlette.requests import Request

    from fw.problems import problem_from

    app.build()
    table = {
        (entry.pattern.path, entry.pattern.method): entry.handler
        for entry in app.entries
        if not entry.pattern.wildcards and entry.pattern.method is not None
    }

    async def lean(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            handler = table.get((scope["path"], scope["method"]))
            if handler is not None and not any(
                name in (b"content-length", b"transfer-encoding") for name, _ in scope["headers"]
            ):
                try:
                    response = await handler(Request(scope, receive, send))
                except Exception as error:
                    response = problem_from(error).response()
                await response(scope, receive, send)
                return
        await app(scope, receive, send)

    return lean


lean_app = make_lean_prototype(fw_app)
