"""The App's middleware stack: ``ProblemBoundary`` decides every case as Starlette's ExceptionMiddleware."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from starlette.exceptions import HTTPException
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

import fw
from fw.problems import Problem
from fw.stack import ProblemBoundary

Inner = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class Teapot(Problem):
    """A subclass of a handled exception, found through its MRO."""


def _render_problem(request: Request, exc: Exception) -> Response:  # a sync handler: thread pool
    assert isinstance(exc, Problem)
    return PlainTextResponse(f"problem {exc.status} at {request.url.path}", status_code=exc.status)


async def _render_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return PlainTextResponse(f"http {exc.status_code}", status_code=exc.status_code)


async def _status_418(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("short and stout", status_code=418)


async def _nothing(request: Request, exc: Exception) -> None:
    return None


class Quiet(Exception):
    """Handled by a handler that answers nothing."""


HANDLERS: dict[Any, Any] = {
    Problem: _render_problem,
    HTTPException: _render_http,
    418: _status_418,
    Quiet: _nothing,
}


async def _problem(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise Problem(status=409, code="conflict")


async def _teapot(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise Teapot(status=400, code="teapot")


async def _http_404(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise HTTPException(404)


async def _http_418(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise HTTPException(418)


async def _unhandled(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise ValueError("not handled here")


async def _quiet(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise Quiet


async def _after_start(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    raise Problem(status=400, code="late")


async def _answers(scope: dict[str, Any], receive: Any, send: Any) -> None:
    tables = scope["starlette.exception_handlers"]
    body = f"{len(tables[0])} {sorted(tables[1])}".encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": body})


INNER: dict[str, Inner] = {
    "a problem": _problem,
    "a subclass of a handled exception": _teapot,
    "an HTTPException with a class handler": _http_404,
    "an HTTPException with a status handler": _http_418,
    "an unhandled exception": _unhandled,
    "a handler answering nothing": _quiet,
    "an exception after the response started": _after_start,
    "no exception, reading the handler tables": _answers,
}


def _run(boundary: type[ExceptionMiddleware], inner: Inner) -> tuple[list[dict[str, Any]], str | None]:
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "method": "GET", "path": "/x", "headers": [], "query_string": b""}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    try:
        asyncio.run(boundary(inner, handlers=HANDLERS)(scope, receive, send))
    except Exception as error:
        return sent, f"{type(error).__name__}: {error}"
    return sent, None


@pytest.mark.parametrize("case", list(INNER))
def test_every_case_is_decided_as_starlettes_exception_middleware_decides_it(case: str) -> None:
    assert _run(ProblemBoundary, INNER[case]) == _run(ExceptionMiddleware, INNER[case])


def test_a_handled_exception_loses_the_traceback_it_would_grow_on_reuse() -> None:
    reused = Problem(status=400, code="reused")

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        raise reused

    _run(ProblemBoundary, inner)
    assert reused.__traceback__ is None


def test_a_non_http_scope_goes_through_starlettes_own_middleware() -> None:
    seen: list[str] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    async def nothing() -> dict[str, Any]:
        return {}

    asyncio.run(ProblemBoundary(inner, handlers=HANDLERS)({"type": "lifespan"}, nothing, nothing))
    assert seen == ["lifespan"]


def test_an_app_composes_the_server_error_boundary_its_middleware_and_the_problem_boundary() -> None:
    class Marker:
        def __init__(self, app: Any) -> None:
            self.app = app

        async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
            await self.app(scope, receive, send)

    app = fw.App()
    app.add_middleware(Marker)

    @app.route("GET /hello")
    async def hello(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"hello": "world"})

    core = app.build()
    layers = []
    layer: Any = core.middleware_stack  # type: ignore[attr-defined]
    while hasattr(layer, "app"):
        layers.append(type(layer))
        layer = layer.app
    assert layers[0] is ServerErrorMiddleware
    assert layers[1] is Marker
    assert layers[-1] is ProblemBoundary
    assert layer == core.router.app  # type: ignore[attr-defined]  # entered without Router.__call__
