"""fw's router answers every request as an in-order scan of its routes would.

The oracle is Starlette's router, which scans its routes in order: for every path and method of
a table, both routers, given the same routes, answer with the same status, body, ``Allow`` and
``Location``. fw's table and pattern lookups may never pick another route than that scan.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from starlette import routing as starlette_routing
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from fw.core.boundary import problem_response
from fw.core.router import ROUTE_KEY, Router
from fw.core.routes import BaseRoute, Mount, Route, compile_template
from fw.core.serve import RequestPath

#: (path, methods, name) of the routes both routers get, in order; ``None``: a mount there.
Table = list[tuple[str, list[str] | None, str]]


def _answer(name: str) -> Any:
    async def endpoint(request: Request) -> Response:
        return PlainTextResponse(
            f"{name} {request.method} {sorted(request.path_params.items())} {request.scope['root_path']}"
        )

    return endpoint


async def _mounted(scope: Any, receive: Any, send: Any) -> None:
    text = f"mounted {scope['path']} below {scope['root_path']}".encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": text})


API: Table = [
    ("/users/{id}", ["GET"], "user by id"),
    ("/users/me", ["GET", "DELETE"], "me"),  # shadowed for GET by the route above
    ("/orders", ["GET", "POST"], "orders"),
    ("/orders", ["GET", "PUT"], "orders again"),  # GET is the first one's
    ("/items/new", ["GET"], "new item form"),
    ("/items/{name}", ["GET", "POST"], "item by name"),
    ("/files/{rest:path}", ["GET"], "file"),
    ("/files/{rest:path}/meta", ["GET", "PATCH"], "file meta (shadowed for GET)"),
    ("/users/{user}/orders/{order}", ["GET", "PURGE"], "user's order"),
    ("/a.b/{x}", ["GET"], "dotted literal"),  # a dot that must stay literal
    ("/v{major}.{minor}/status", ["GET"], "versioned status"),
    ("/any", ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], "every usual method"),
    ("/health", ["GET"], "health"),
    ("/docs/{page}", ["GET"], "doc page"),
    ("/static", None, "mount"),
    ("/docs/api", None, "mount"),  # after the route above: /docs/api itself is that route's
]

PATHS = [
    "/users/me", "/users/7", "/users/", "/users", "/orders", "/orders/", "/items/new", "/items/seven",
    "/items/", "/files/a/b/c", "/files/a/b/meta", "/files/", "/users/ann/orders/12", "/users//orders/1",
    "/a.b/1", "/aXb/1", "/v1.2/status", "/v1x2/status", "/any", "/any/", "/health", "/health/",
    "/static", "/static/", "/static/css/site.css", "/staticfile", "/docs/intro", "/docs/api",
    "/docs/api/users", "/docs/api/", "/nowhere", "/", "/items/7\n", "/%C3%A9t%C3%A9",
]  # fmt: skip
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PURGE"]


def _fw_routes(table: Table) -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for path, methods, name in table:
        routes.append(
            Mount(path, _mounted) if methods is None else Route(path, _answer(name), methods=methods)
        )
    return routes


def _starlette_app(table: Table) -> Starlette:
    routes: list[starlette_routing.BaseRoute] = []
    for path, methods, name in table:
        if methods is None:
            routes.append(starlette_routing.Mount(path, app=_mounted))
        else:
            routes.append(starlette_routing.Route(path, _answer(name), methods=methods))

    async def problem(request: Request, exc: Exception) -> Response:
        answer = problem_response(exc)
        assert answer is not None
        return answer

    return Starlette(routes=routes, exception_handlers={HTTPException: problem})


async def _call(app: Any, method: str, path: str, root_path: str = "") -> tuple[object, ...]:
    messages: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    scope = {
        "type": "http", "method": method, "path": root_path + path, "raw_path": (root_path + path).encode(),
        "root_path": root_path, "scheme": "http", "query_string": b"", "headers": [(b"host", b"testserver")],
        "server": ("testserver", 80), "client": ("127.0.0.1", 5000), "http_version": "1.1",
    }  # fmt: skip
    await app(scope, receive, send)
    start, body = messages[0], b"".join(m.get("body", b"") for m in messages[1:])
    headers = dict(start["headers"])
    allow = b", ".join(sorted(headers.get(b"allow", b"").split(b", ")))
    return method, path, start["status"], body, allow, headers.get(b"location")


@pytest.mark.parametrize("root_path", ["", "/prefix"])
async def test_every_path_and_method_gets_the_answer_an_in_order_scan_gives(root_path: str) -> None:
    fw_app = RequestPath(Router(_fw_routes(API)))
    oracle = _starlette_app(API)
    for method, path in itertools.product(PATHS, METHODS):
        assert await _call(fw_app, method, path, root_path) == await _call(oracle, method, path, root_path)


def test_the_alternation_chooses_the_first_route_of_the_method_whose_pattern_matches() -> None:
    router = Router(_fw_routes(API))
    found = router.find("GET", "/users/me")
    assert found is not None and found[0].path == "/users/{id}" and found[1] == {"id": "me"}
    found = router.find("DELETE", "/users/me")
    assert found is not None and found[0].path == "/users/me" and found[1] == {}
    found = router.find("GET", "/files/a/b/meta")
    assert found is not None and found[0].path == "/files/{rest:path}" and found[1] == {"rest": "a/b/meta"}
    found = router.find("PURGE", "/users/ann/orders/12")
    assert found is not None and found[1] == {"user": "ann", "order": "12"}
    assert router.find("GET", "/nowhere") is None


def test_a_static_route_shadowed_by_an_earlier_pattern_is_not_in_the_table() -> None:
    routes = [
        Route("/users/{id}", _answer("by id"), methods=["GET"]),
        Route("/users/me", _answer("me"), methods=["GET"]),
    ]
    found = Router(routes).find("GET", "/users/me")
    assert found is not None and found[0] is routes[0]


async def test_the_matched_template_is_recorded_for_observability() -> None:
    seen: dict[str, Any] = {}

    async def endpoint(request: Request) -> Response:
        seen["route"] = request.scope[ROUTE_KEY]
        return PlainTextResponse("ok")

    router = Router([Route("/orders/{id}", endpoint, methods=["GET"], template="/orders/{id}")])
    await _call(RequestPath(router), "GET", "/orders/7")
    assert seen == {"route": "/orders/{id}"}


def test_a_template_with_an_unknown_parameter_kind_or_a_repeated_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown parameter kind 'int'"):
        compile_template("/items/{id:int}")
    with pytest.raises(ValueError, match="appears twice"):
        compile_template("/a/{x}/b/{x}")


def test_url_path_for_fills_a_named_routes_parameters() -> None:
    router = Router(
        [
            Route("/orders/{id}", _answer("x"), methods=["GET"], name="order"),
            Mount("/static", _mounted, name="static"),
        ]
    )
    assert router.url_path_for("order", id="7") == "/orders/7"
    assert router.url_path_for("static", path="/css/a.css") == "/static/css/a.css"
    with pytest.raises(LookupError, match="order"):
        router.url_path_for("order")
