"""Dispatch: the static-route table and the compiled patterns pick the route Starlette's scan would pick."""

from __future__ import annotations

import itertools
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Host, Mount, Route, Router, WebSocketRoute
from starlette.websockets import WebSocket

from fw.dispatch import CompiledRoutes, StaticFirstRouter, handler_app, leading_plain_routes, static_table


def _answer(name: str) -> Any:
    async def endpoint(request: Request) -> Response:
        return PlainTextResponse(f"{name} {request.method} {request.path_params}")

    return endpoint


def _inner_app(name: str) -> Any:
    return Starlette(routes=[Route("/{rest:path}", _answer(name), methods=["GET", "POST"])])


def _routes() -> list[BaseRoute]:
    return [
        Route("/users/{id}", _answer("user by id"), methods=["GET"]),
        Route("/users/me", _answer("me"), methods=["GET", "DELETE"]),  # shadowed for GET by the one above
        Route("/orders", _answer("orders"), methods=["GET", "POST"]),
        Route("/orders", _answer("orders again"), methods=["GET", "PUT"]),  # GET is the first one's
        Mount("/static", app=_inner_app("mounted")),
        Route("/static/logo", _answer("behind a mount")),  # never reached through the table
        Route("/any", _answer("no methods named")),  # Starlette's default: GET (and HEAD)
        Route("/health", _answer("health"), methods=["GET"]),
    ]


PATHS = ["/users/me", "/users/7", "/orders", "/orders/", "/static/logo", "/any", "/health", "/nowhere", "/"]
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


class _Even(Convertor[int]):
    """A convertor of the application's own, whose ``convert`` refuses what its pattern matched."""

    regex = "[0-9]+"

    def convert(self, value: str) -> int:
        if int(value) % 2:
            raise ValueError(f"{value} is odd")
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("fw_test_even", _Even())


async def _socket(websocket: WebSocket) -> None:
    await websocket.close()


class _Custom(Route):
    """A route subclass: it may match otherwise than by its pattern, so no pattern stands in for it."""


def _parameterised_routes() -> list[BaseRoute]:
    return [
        Route("/items/new", _answer("new item form"), methods=["GET"]),
        Route("/items/{id:int}", _answer("item by number"), methods=["GET"]),
        # The same path under another method, then a pattern a number also matches (GET is above).
        Route("/items/{id:int}", _answer("item removal"), methods=["DELETE"]),
        Route("/items/{name}", _answer("item by name"), methods=["GET", "POST"]),
        WebSocketRoute("/items/{name}/live", _socket),  # never matches HTTP, passed over
        Route("/prices/{amount:float}", _answer("price"), methods=["GET"]),
        Route("/tokens/{id:uuid}", _answer("token"), methods=["GET", "PUT"]),
        Route("/files/{rest:path}", _answer("file"), methods=["GET"]),
        Route("/files/{rest:path}/meta", _answer("file meta (shadowed for GET)"), methods=["GET", "PATCH"]),
        Route("/raw/{anything}", _AsgiEndpoint()),  # an ASGI endpoint: every method
        Route("/users/{user}/orders/{order:int}", _answer("user's order"), methods=["GET"]),
        Route("/users/{user}/orders/{order}", _answer("user's order by name"), methods=["GET", "PURGE"]),
        Route("/v{major:int}.{minor:int}/status", _answer("versioned status"), methods=["GET"]),
        Route("/a.b/{x}", _answer("dotted literal"), methods=["GET"]),  # a dot that must stay literal
        _Custom("/custom/{x}", _answer("custom route"), methods=["GET"]),  # ends the compiled run
        Route("/after-custom/{x}", _answer("after the custom route"), methods=["GET"]),
    ]


def _routes_with_a_custom_convertor() -> list[BaseRoute]:
    return [
        Route(
            "/even/{n:fw_test_even}", _answer("even"), methods=["POST"]
        ),  # the scan converts it for GET too
        Route("/even/{n}", _answer("any"), methods=["GET"]),
    ]


def _routes_with_a_mount() -> list[BaseRoute]:
    return [
        Route("/docs/{page}", _answer("doc page"), methods=["GET"]),
        Mount("/docs/api", app=_inner_app("mounted api")),
        Route("/docs/api/{page}", _answer("behind the mount"), methods=["GET"]),
        Route("/after/{x}", _answer("after the mount"), methods=["GET"]),
    ]


PARAMETERISED_PATHS = [
    "/items/new", "/items/7", "/items/-7", "/items/seven", "/items/7/live", "/items/", "/items",
    "/prices/1.5", "/prices/2", "/prices/1.", "/tokens/0b5e0a47-5b93-4c1a-9c8e-7c4a3c0bd0a1",
    "/tokens/not-a-uuid", "/files/a/b/c", "/files/a/b/meta", "/files/", "/raw/x", "/raw/x/y",
    "/users/ann/orders/12", "/users/ann/orders/twelve", "/users//orders/1", "/v1.2/status",
    "/v1x2/status", "/a.b/1", "/aXb/1", "/custom/1", "/after-custom/1", "/even/2", "/even/3",
    "/docs/intro", "/docs/api", "/docs/api/users", "/after/1", "/items/7\n", "/nowhere",
]  # fmt: skip
PARAMETERISED_METHODS = [*METHODS, "PURGE", "BREW"]


async def _all_answers(
    router: Router, paths: list[str] = PATHS, methods: list[str] = METHODS
) -> list[tuple[str, str, object, bytes, object]]:
    """Each request's status, body and ``allow`` header, or the exception it raised, called as ASGI
    (so that any path, a trailing newline included, reaches the router as it is)."""
    app = Starlette()
    app.router = router
    answers: list[tuple[str, str, object, bytes, object]] = []
    for path, method in itertools.product(paths, methods):
        messages: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any], into: list[dict[str, Any]] = messages) -> None:
            into.append(message)

        scope = {
            "type": "http", "method": method, "path": path, "raw_path": path.encode(), "root_path": "",
            "scheme": "http", "query_string": b"", "headers": [(b"host", b"testserver")],
            "server": ("testserver", 80), "client": ("127.0.0.1", 5000), "http_version": "1.1",
        }  # fmt: skip
        try:
            await app(scope, receive, send)
        except Exception as error:  # the scan's own failures (a convertor refusing) must match too
            answers.append((method, path, type(error).__name__, str(error).encode(), None))
            continue
        start, body = messages[0], b"".join(m.get("body", b"") for m in messages[1:])
        allow = dict(start["headers"]).get(b"allow")
        answers.append((method, path, start["status"], body, allow))
    return answers


async def test_every_path_and_method_gets_the_answer_starlettes_scan_gives() -> None:
    assert await _all_answers(StaticFirstRouter(_routes())) == await _all_answers(Router(_routes()))


@pytest.mark.parametrize(
    "routes", [_parameterised_routes, _routes_with_a_custom_convertor, _routes_with_a_mount, _routes]
)
async def test_every_parameterised_path_and_method_gets_the_answer_starlettes_scan_gives(routes: Any) -> None:
    ours = await _all_answers(StaticFirstRouter(routes()), PARAMETERISED_PATHS, PARAMETERISED_METHODS)
    if routes is _parameterised_routes:  # the answers the compiled patterns give, spot-checked
        assert ("GET", "/items/7", 200, b"item by number GET {'id': 7}", None) in ours
        assert ("DELETE", "/items/7", 200, b"item removal DELETE {'id': 7}", None) in ours
        assert (
            "PURGE",
            "/users/ann/orders/12",
            200,
            b"user's order by name PURGE {'user': 'ann', 'order': '12'}",
            None,
        ) in ours
    scan = await _all_answers(Router(routes()), PARAMETERISED_PATHS, PARAMETERISED_METHODS)
    assert ours == scan


def test_the_compiled_patterns_choose_the_first_route_of_the_method_whose_pattern_matches() -> None:
    routes = _parameterised_routes()
    compiled = CompiledRoutes(routes)
    assert compiled.first("/items/7", "GET") is routes[1]
    assert compiled.first("/items/7", "HEAD") is routes[1]  # GET answers HEAD, as Starlette's route does
    assert compiled.first("/items/7", "DELETE") is routes[2]
    assert compiled.first("/items/7", "POST") is routes[3]  # the number routes take no POST
    assert compiled.first("/items/new", "GET") is routes[0]
    assert compiled.first("/prices/1.5", "GET") is routes[5]  # a float's own group does not confuse it
    assert compiled.first("/files/a/b/meta", "GET") is routes[7]
    assert compiled.first("/files/a/b/meta", "PATCH") is routes[8]
    assert compiled.first("/raw/x", "BREW") is routes[9]  # a method no route names: the ASGI endpoint
    assert compiled.first("/items/7", "BREW") is None
    assert compiled.first("/items/7", "PUT") is None  # a 405 is the scan's answer
    assert compiled.first("/after-custom/1", "GET") is None  # after the custom route: the scan's


def test_the_compiled_run_ends_at_a_route_matching_otherwise_than_by_its_pattern() -> None:
    assert [r.path for r in leading_plain_routes(_routes_with_a_mount())] == ["/docs/{page}"]
    assert leading_plain_routes(_routes_with_a_custom_convertor()) == []
    plain = leading_plain_routes(_parameterised_routes())
    assert plain[-1].path == "/a.b/{x}"
    assert not any(isinstance(route, WebSocketRoute) for route in plain)


def test_a_static_route_shadowed_by_an_earlier_match_is_left_to_the_scan() -> None:
    routes = _routes()
    table = static_table(routes)
    assert ("/users/me", "GET") not in table  # /users/{id} comes first and matches
    assert table[("/users/me", "DELETE")] is routes[1]
    assert table[("/orders", "GET")] is routes[2]
    assert table[("/orders", "PUT")] is routes[3]
    assert ("/static/logo", "GET") not in table  # the mount comes first
    assert table[("/health", "HEAD")] is routes[7]  # GET answers HEAD, as Starlette's route does
    assert table[("/any", "GET")] is routes[6]
    assert ("/any", "POST") not in table  # a 405 is the scan's answer


def test_no_entry_follows_a_route_that_matches_on_more_than_path_and_method() -> None:
    routes: list[BaseRoute] = [
        Route("/health", _answer("health"), methods=["GET"]),
        Host("api.example", app=_inner_app("host")),
        Route("/after", _answer("after"), methods=["GET"]),
    ]
    assert set(static_table(routes)) == {("/health", "GET"), ("/health", "HEAD")}


@pytest.mark.parametrize(("path", "route_path"), [("/x", "/x"), ("/x/7", "/x/{n:int}")])
async def test_a_table_or_pattern_hit_leaves_the_scope_as_the_scan_leaves_it(
    path: str, route_path: str
) -> None:
    seen: dict[str, Any] = {}

    async def endpoint(request: Request) -> Response:
        seen.update(request.scope)
        return PlainTextResponse("ok")

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    scans: list[dict[str, Any]] = []
    for router in (StaticFirstRouter([Route(route_path, endpoint)]), Router([Route(route_path, endpoint)])):
        seen.clear()
        scope = {
            "type": "http",
            "method": "GET",
            "path": path,
            "root_path": "",
            "headers": [],
            "query_string": b"",
        }
        await router(scope, receive, send)
        scans.append({k: v for k, v in seen.items() if k != "router"})
        assert seen["router"] is router
    assert scans[0] == scans[1]
    assert scans[0]["path_params"] == ({"n": 7} if route_path != path else {})


async def test_a_plain_function_handler_runs_and_answers() -> None:
    def handler(request: Request) -> Response:
        return PlainTextResponse(f"sync {request.method}")

    route = Route("/s", handler)
    route.app = handler_app(handler)  # as fw.App builds its routes
    app = Starlette(routes=[route])
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/s")).text == "sync GET"


@pytest.mark.parametrize("root_path", ["", "/prefix"])
async def test_the_table_looks_paths_up_below_the_root_path(root_path: str) -> None:
    router = StaticFirstRouter([Route("/health", _answer("health"), methods=["GET"])])
    app = Starlette()
    app.router = router
    transport = httpx2.ASGITransport(app=app, root_path=root_path)
    async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.get(f"{root_path}/health")
    assert response.status_code == 200
    assert response.text.startswith("health GET")


class _AsgiEndpoint:
    """An object Starlette treats as an ASGI app, not as a request handler."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await PlainTextResponse(f"asgi {scope['method']}")(scope, receive, send)


def test_an_app_route_to_an_asgi_object_stays_an_asgi_app_and_a_function_is_called_with_a_request() -> None:
    from starlette.testclient import TestClient

    import fw

    app = fw.App()
    app.add_route("GET /asgi", _AsgiEndpoint())  # type: ignore[arg-type]

    @app.route("GET /plain")
    def plain(request: fw.Request) -> fw.Response:
        return PlainTextResponse(f"plain {request.url.path}")

    with TestClient(app) as client:
        assert client.get("/asgi").text == "asgi GET"
        assert client.get("/plain").text == "plain /plain"
