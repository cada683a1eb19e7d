"""The middleware pipeline and the error boundary: what each decision and each exception does."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx2
import pytest
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import Scope

import fw
from fw.core.boundary import ErrorBoundary
from fw.core.middleware import Decision, Middleware, Pipeline
from fw.core.router import Router
from fw.core.routes import Route
from fw.core.serve import RequestPath


class Recorder:
    """A middleware answering with whatever its test sets, noting that it was asked."""

    def __init__(self, name: str, decision: Any = None) -> None:
        self.name = name
        self.decision = decision

    def decide(self, scope: Scope) -> Decision:
        scope.setdefault("asked", []).append(self.name)
        return (
            self.decision()
            if callable(self.decision) and not isinstance(self.decision, Response)
            else self.decision
        )


async def _echo(request: Request) -> Response:
    return JSONResponse({"asked": request.scope.get("asked", [])})


def _client(*middleware: Middleware, routes: list[Route] | None = None) -> httpx2.AsyncClient:
    router = Router(routes or [Route("/", _echo, methods=["GET"])])
    app = RequestPath(router, middleware)
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app, raise_app_exceptions=False), base_url="http://t"
    )


async def test_every_middleware_is_asked_in_order_before_the_route_when_each_hands_on() -> None:
    async with _client(Recorder("outer"), Recorder("inner")) as client:
        response = await client.get("/")
    assert response.json() == {"asked": ["outer", "inner"]}


async def test_a_response_answers_and_neither_later_middleware_nor_the_route_are_reached() -> None:
    refusal = PlainTextResponse("no", status_code=401)
    later = Recorder("later")
    async with _client(Recorder("guard", refusal), later) as client:
        response = await client.get("/")
    assert (response.status_code, response.text) == (401, "no")


async def test_an_awaitable_decision_is_awaited_and_read_as_a_plain_one() -> None:
    async def refuse() -> Response:
        return PlainTextResponse("later no", status_code=403)

    async def hand_on() -> None:
        return None

    async with _client(Recorder("a", hand_on), Recorder("b", refuse)) as client:
        response = await client.get("/")
    assert (response.status_code, response.text) == (403, "later no")


async def test_amend_hooks_change_the_response_headers_whoever_answers() -> None:
    def amend(headers: MutableHeaders) -> None:
        headers.append("x-amended", "yes")

    async with _client(Recorder("a", lambda: amend)) as client:
        served = await client.get("/")
    async with _client(Recorder("a", lambda: amend), Recorder("b", PlainTextResponse("no", 401))) as client:
        refused = await client.get("/")
    assert served.headers["x-amended"] == "yes" and served.status_code == 200
    assert refused.headers["x-amended"] == "yes" and refused.status_code == 401


async def test_a_problem_raised_by_a_middleware_is_answered_as_that_problem() -> None:
    def refuse() -> None:
        raise fw.Problem(status=429, code="slow_down")

    async with _client(Recorder("a", refuse)) as client:
        response = await client.get("/")
    assert (response.status_code, response.json()["code"]) == (429, "slow_down")
    assert response.headers["content-type"] == "application/problem+json"


async def _raise_problem(request: Request) -> Response:
    raise fw.Problem(status=409, code="conflict")


async def _raise_http(request: Request) -> Response:
    raise HTTPException(status_code=418, headers={"x-teapot": "1"})


async def _raise_bug(request: Request) -> Response:
    raise RuntimeError("a bug with a secret inside")


class _FailsAfterStart(Response):
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        raise RuntimeError("after the start")


async def _stream_then_fail(request: Request) -> Response:
    return _FailsAfterStart()


ERRORS = [
    Route("/problem", _raise_problem, methods=["GET"]),
    Route("/http", _raise_http, methods=["GET"]),
    Route("/bug", _raise_bug, methods=["GET"]),
    Route("/stream", _stream_then_fail, methods=["GET"]),
]


async def test_a_problem_and_an_http_exception_become_their_problem_documents() -> None:
    async with _client(routes=ERRORS) as client:
        problem = await client.get("/problem")
        http = await client.get("/http")
    assert (problem.status_code, problem.json()["code"]) == (409, "conflict")
    assert (http.status_code, http.json()["code"], http.headers["x-teapot"]) == (418, "http_error", "1")


async def test_a_bug_is_logged_answered_with_the_opaque_500_and_raised_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = RequestPath(Router(ERRORS))
    transport = httpx2.ASGITransport(app=app, raise_app_exceptions=True)
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
        with caplog.at_level(logging.ERROR), pytest.raises(RuntimeError, match="a bug"):
            await client.get("/bug")
    assert any(record.exc_info and "a bug" in str(record.exc_info[1]) for record in caplog.records)
    async with _client(routes=ERRORS) as client:
        answered = await client.get("/bug")
    assert answered.status_code == 500 and answered.json()["code"] == "internal_error"
    assert "secret" not in answered.text


async def test_an_error_after_the_response_started_is_raised_on_without_a_second_answer() -> None:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/stream",
        "root_path": "",
        "headers": [],
        "query_string": b"",
    }
    with pytest.raises(RuntimeError, match="after the start"):
        await RequestPath(Router(ERRORS))(scope, receive, send)
    assert [m["type"] for m in sent] == ["http.response.start"] and sent[0]["status"] == 200


def test_a_handled_exception_loses_the_traceback_it_would_grow_on_reuse() -> None:
    reused = fw.Problem(status=409, code="conflict")

    async def raise_reused(request: Request) -> Response:
        raise reused

    async def twice() -> None:
        async with _client(routes=[Route("/", raise_reused, methods=["GET"])]) as client:
            await client.get("/")
            await client.get("/")

    asyncio.run(twice())
    assert reused.__traceback__ is None


async def test_a_websocket_handshake_refused_by_a_middleware_is_closed_with_a_policy_violation() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    pipeline = RequestPath(Router([]), [Recorder("guard", PlainTextResponse("no", 401))])
    await pipeline({"type": "websocket", "path": "/live", "root_path": "", "headers": []}, receive, send)
    assert sent == [{"type": "websocket.close", "code": 1008}]


def test_fws_auth_middlewares_implement_the_one_protocol() -> None:
    from fw.auth.browser.middleware import BrowserSessionMiddleware
    from fw.auth.modes.jwt_only.middleware import BearerMiddleware

    for cls in (BrowserSessionMiddleware, BearerMiddleware):
        assert callable(getattr(cls, "decide", None))
        assert "__call__" not in vars(cls)  # no second path: the decision is the whole say


def test_an_app_composes_its_boundary_its_own_middleware_then_the_pipeline_and_router() -> None:
    class Outer:
        def __init__(self, app: Any, tag: str) -> None:
            self.app, self.tag = app, tag

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await self.app(scope, receive, send)

    app = fw.App()
    app.add_middleware(Outer, tag="x")
    with fw.testing.configured(toml=""):
        stack: Any = app.build()
    assert type(stack) is ErrorBoundary and type(stack.app) is Outer and type(stack.app.app) is RequestPath


def test_an_app_without_middleware_of_its_own_is_one_layer() -> None:
    with fw.testing.configured(toml=""):
        assert type(fw.App().build()) is RequestPath


async def test_the_pipeline_guards_any_other_asgi_application_with_fws_middleware() -> None:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware as StarletteMiddleware
    from starlette.routing import Route as StarletteRoute

    guard = Recorder("guard", lambda: PlainTextResponse("no", 401) if guard.refuse else None)
    guard.refuse = False  # type: ignore[attr-defined]
    other = Starlette(
        routes=[StarletteRoute("/", _echo)], middleware=[StarletteMiddleware(Pipeline, middleware=[guard])]
    )
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=other), base_url="http://t") as client:
        served = await client.get("/")
        guard.refuse = True  # type: ignore[attr-defined]
        refused = await client.get("/")
    assert served.json() == {"asked": ["guard"]} and refused.status_code == 401
