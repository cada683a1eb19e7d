"""Dispatch: the static-route table picks exactly the route Starlette's in-order scan would pick."""

from __future__ import annotations

import itertools
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Host, Mount, Route, Router

from fw.dispatch import StaticFirstRouter, handler_app, static_table


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


async def _all_answers(router: Router) -> list[tuple[int, str, str | None]]:
    app = Starlette()
    app.router = router
    transport = httpx2.ASGITransport(app=app)
    answers = []
    async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
        for path, method in itertools.product(PATHS, METHODS):
            response = await client.request(method, path, follow_redirects=False)
            answers.append((response.status_code, response.text, response.headers.get("allow")))
    return answers


async def test_every_path_and_method_gets_the_answer_starlettes_scan_gives() -> None:
    assert await _all_answers(StaticFirstRouter(_routes())) == await _all_answers(Router(_routes()))


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


async def test_a_table_hit_leaves_the_scope_as_the_scan_leaves_it() -> None:
    seen: dict[str, Any] = {}

    async def endpoint(request: Request) -> Response:
        seen.update(request.scope)
        return PlainTextResponse("ok")

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    scans: list[dict[str, Any]] = []
    for router in (StaticFirstRouter([Route("/x", endpoint)]), Router([Route("/x", endpoint)])):
        seen.clear()
        scope = {
            "type": "http",
            "method": "GET",
            "path": "/x",
            "root_path": "",
            "headers": [],
            "query_string": b"",
        }
        await router(scope, receive, send)
        scans.append({k: v for k, v in seen.items() if k != "router"})
        assert seen["router"] is router
    assert scans[0] == scans[1]


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
