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
from fw.auth.browser.middleware import BrowserSessionMiddleware
from fw.auth.modes.jwt_only.middleware import BearerMiddleware
from fw.problems import Problem
from fw.stack import BEFORE, FORWARDS_SEND, Decision, ErrorBoundary, ProblemBoundary

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


def _call(app: Any) -> tuple[list[dict[str, Any]], str | None]:
    """What ``app`` sends for a GET, and the exception it raises (as text), if any."""
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "method": "GET", "path": "/x", "headers": [], "query_string": b""}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    try:
        asyncio.run(app(scope, receive, send))
    except Exception as error:
        return sent, f"{type(error).__name__}: {error}"
    return sent, None


def _run(boundary: type[ExceptionMiddleware], inner: Inner) -> tuple[list[dict[str, Any]], str | None]:
    return _call(boundary(inner, handlers=HANDLERS))


@pytest.mark.parametrize("case", list(INNER))
def test_every_case_is_decided_as_starlettes_exception_middleware_decides_it(case: str) -> None:
    assert _run(ProblemBoundary, INNER[case]) == _run(ExceptionMiddleware, INNER[case])


async def _unhandled_after_start(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    raise ValueError("too late to answer")


def _failing_problem_handler(request: Request, exc: Exception) -> Response:
    raise KeyError("the handler itself failed")


async def _problem_with_failing_handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise Quiet("answered by a handler that fails")


async def _error_page(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(f"error page: {type(exc).__name__}", status_code=500)


def _sync_error_page(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(f"sync error page: {type(exc).__name__}", status_code=500)


OUTER_CASES: dict[str, Inner] = {
    **INNER,
    "an unhandled exception after the response started": _unhandled_after_start,
    "a handler that fails": _problem_with_failing_handler,
}
ERROR_HANDLERS: dict[str, dict[str, Any]] = {
    "Starlette's own 500": {},
    "an async 500 handler": {"handler": _error_page},
    "a sync 500 handler": {"handler": _sync_error_page},
    "debug": {"debug": True},
}


class Forwarding:
    """Middleware that calls the app with the ``send`` it got (as fw's bearer middleware does)."""

    fw_forwards_send = True

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        scope.setdefault("passed", []).append(type(self).__name__)
        await self.app(scope, receive, send)


class Wrapping(Forwarding):
    """Middleware that calls the app with a wrapper of ``send`` adding a header (as DPoP nonces do)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"x-wrapped", b"1")]}
            await send(message)

        await self.app(scope, receive, sending)


class Answering(Forwarding):
    """Middleware that answers by itself without calling the app (as a refused token is)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 401, "headers": []})
        await send({"type": "http.response.body", "body": b"refused"})


class Hooked(Forwarding):
    """Middleware offering ``fw_before``, its ``__call__`` deciding through it (as fw's bearer middleware)."""

    def fw_before(self, scope: dict[str, Any]) -> Decision:
        scope.setdefault("passed", []).append(type(self).__name__)
        return None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        decision = self.fw_before(scope)
        if decision is None:
            await self.app(scope, receive, send)
        elif isinstance(decision, tuple):
            await send(decision[0])
            await send(decision[1])
        else:
            await decision(scope, receive, send)


class HookAnswering(Hooked):
    """A hook answering the request itself (as a refused token is)."""

    def fw_before(self, scope: dict[str, Any]) -> Decision:
        return (
            {"type": "http.response.start", "status": 401, "headers": [(b"www-authenticate", b"Bearer")]},
            {"type": "http.response.body", "body": b"refused by a hook"},
        )


class HookHandingOver(Hooked):
    """A hook handing the request to its middleware's own path, which wraps ``send`` (as DPoP does)."""

    def fw_before(self, scope: dict[str, Any]) -> Decision:
        return self.serve

    async def serve(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        scope.setdefault("passed", []).append("HookHandingOver served")
        await Wrapping(self.app)(scope, receive, send)


class HookFailing(Hooked):
    """A hook that fails (a bug in a middleware): the server error boundary answers."""

    def fw_before(self, scope: dict[str, Any]) -> Decision:
        raise RuntimeError("a bug in a hook")


MIDDLEWARE: dict[str, tuple[type[Forwarding], ...]] = {
    "none": (),
    "one forwarding send": (Forwarding,),
    "two forwarding send": (Forwarding, Forwarding),
    "one wrapping send": (Wrapping,),
    "forwarding around wrapping": (Forwarding, Wrapping),
    "one answering by itself": (Answering,),
    "one hook": (Hooked,),
    "two hooks": (Hooked, Hooked),
    "a hook answering": (HookAnswering,),
    "a hook, then one answering": (Hooked, HookAnswering),
    "a hook handing over": (HookHandingOver,),
    "a hook, then one handing over, then a hook": (Hooked, HookHandingOver, Hooked),
    "a failing hook": (HookFailing,),
    "a hook beside a middleware without one": (Hooked, Forwarding),
}


def _run_outer(
    merged: bool, inner: Inner, options: dict[str, Any], middleware: tuple[type[Forwarding], ...] = ()
) -> tuple[list[dict[str, Any]], str | None]:
    handlers = (
        {**HANDLERS, Quiet: _failing_problem_handler} if inner is _problem_with_failing_handler else HANDLERS
    )

    problems = ProblemBoundary(inner, handlers=handlers)
    stack: Any = problems
    layers: list[Any] = []
    for cls in reversed(middleware):
        stack = cls(stack)
        layers.insert(0, stack)
    if merged:
        hooks = [layer.fw_before for layer in layers] if all(hasattr(m, BEFORE) for m in layers) else None
        stack = ErrorBoundary(problems, **options, inner=stack if middleware else None, hooks=hooks)
    else:
        stack = ServerErrorMiddleware(stack, **options)
    sent, raised = _call(stack)
    return _comparable(sent), raised


def _comparable(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages; a debug page's traceback (whose frames differ) reduced to its first line."""
    if not any(m.get("body", b"").startswith(b"Traceback") for m in sent):
        return sent
    return [
        {**m, "body": m["body"].split(b"\n")[0]}
        if m["type"] == "http.response.body"
        else {**m, "headers": [h for h in m.get("headers", []) if h[0] != b"content-length"]}
        for m in sent
    ]


@pytest.mark.parametrize("middleware", list(MIDDLEWARE))
@pytest.mark.parametrize("errors", list(ERROR_HANDLERS))
@pytest.mark.parametrize("case", list(OUTER_CASES))
def test_the_shared_boundary_decides_every_case_as_the_two_layers_it_replaces(
    case: str, errors: str, middleware: str
) -> None:
    options, layers = ERROR_HANDLERS[errors], MIDDLEWARE[middleware]
    merged = _run_outer(True, OUTER_CASES[case], options, layers)
    assert merged == _run_outer(False, OUTER_CASES[case], options, layers)


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


def test_an_app_without_middleware_has_one_boundary_layer_around_its_router() -> None:
    app = fw.App()

    @app.route("GET /hello")
    async def hello(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"hello": "world"})

    core = app.build()
    stack: Any = core.middleware_stack  # type: ignore[attr-defined]
    assert type(stack) is ErrorBoundary
    assert type(stack.app) is ProblemBoundary
    assert stack.app.app == core.router.app  # type: ignore[attr-defined]


def _reporting_app(*middleware: type) -> fw.App:
    """An App with ``middleware`` (outermost first) whose ``GET /x`` answers what they noted in the scope."""
    app = fw.App()
    for cls in middleware:
        app.add_middleware(cls)

    @app.route("GET /x")
    async def passed(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"passed": request.scope["passed"]})

    return app


def test_an_app_whose_middleware_all_forward_send_shares_one_boundary_wrapper() -> None:
    app = _reporting_app(Forwarding, Wrapping)
    core = app.build()
    stack: Any = core.middleware_stack  # type: ignore[attr-defined]
    assert type(stack) is ErrorBoundary
    assert [type(stack.app), type(stack.app.app), type(stack.app.app.app)] == [
        Forwarding,
        Wrapping,
        ProblemBoundary,
    ]
    sent, raised = _call(app)
    assert raised is None
    assert (sent[0]["status"], sent[1]["body"]) == (200, b'{"passed":["Forwarding"]}')
    assert (b"x-wrapped", b"1") in sent[0]["headers"]


def test_one_middleware_not_known_to_forward_send_keeps_starlettes_two_boundaries() -> None:
    class Unknown(Forwarding):
        fw_forwards_send = False

    app = fw.App()
    app.add_middleware(Forwarding)
    app.add_middleware(Unknown)
    stack: Any = app.build().middleware_stack  # type: ignore[attr-defined]
    assert type(stack) is ServerErrorMiddleware
    assert type(stack.app.app.app) is ProblemBoundary


@pytest.mark.parametrize("middleware", [BearerMiddleware, BrowserSessionMiddleware])
def test_the_auth_pillars_middleware_lets_an_app_share_one_boundary_wrapper(middleware: type) -> None:
    assert getattr(middleware, FORWARDS_SEND) is True


def test_an_app_whose_middleware_all_offer_a_hook_calls_the_hooks_instead_of_the_layers() -> None:
    app = _reporting_app(Hooked, Hooked)
    stack: Any = app.build().middleware_stack  # type: ignore[attr-defined]
    assert type(stack) is ErrorBoundary
    assert [type(hook.__self__) for hook in stack._hooks] == [Hooked, Hooked]
    sent, raised = _call(app)
    assert raised is None
    assert (sent[0]["status"], sent[1]["body"]) == (200, b'{"passed":["Hooked","Hooked"]}')


def test_a_hook_handing_over_has_its_middleware_serve_the_rest_of_the_chain() -> None:
    sent, raised = _call(_reporting_app(Hooked, HookHandingOver, Hooked))
    assert raised is None
    assert sent[1]["body"] == b'{"passed":["Hooked","HookHandingOver served","Hooked"]}'
    assert (b"x-wrapped", b"1") in sent[0]["headers"]


def test_middleware_without_a_hook_keeps_every_middleware_a_layer() -> None:
    app = fw.App()
    app.add_middleware(Hooked)
    app.add_middleware(Forwarding)
    stack: Any = app.build().middleware_stack  # type: ignore[attr-defined]
    assert type(stack) is ErrorBoundary and stack._hooks == ()


def test_the_bearer_middleware_offers_a_hook() -> None:
    assert callable(getattr(BearerMiddleware, BEFORE))
