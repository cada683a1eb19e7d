"""The middleware stack of an App: Starlette's composition, with less done per request.

Starlette composes, from the outside in: ``ServerErrorMiddleware`` (the 500 boundary), the
application's and the pillars' middleware, its ``ExceptionMiddleware`` (the boundary for
handled exceptions: fw's problems and ``HTTPException``), then the router. fw keeps exactly
that order and behaviour, and changes what two layers cost on every HTTP request:

* :class:`ProblemBoundary` is ``ExceptionMiddleware`` without the per-request objects it builds
  before anything fails: a ``Request`` for the handler and a wrapper closure around a second
  wrapper closure. It builds the ``Request`` only when an exception needs a handler, and tracks
  whether the response started in one closure. WebSockets and other scopes go through
  ``ExceptionMiddleware`` itself.
* :class:`ErrorBoundary` is ``ServerErrorMiddleware`` and :class:`ProblemBoundary` as one layer,
  used when the App has no middleware to put between them (none of its own, no pillar's): one
  ``send`` wrapper and one coroutine instead of two of each.
* the router is entered at its own middleware stack (``Router.__call__`` only forwards there).

The App calls the stack itself and sets ``scope["app"]`` as ``Starlette.__call__`` does.
"""

from __future__ import annotations

from typing import Any

from starlette._exception_handler import _lookup_exception_handler
from starlette._utils import is_async_callable
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _tracking(send: Send) -> tuple[Send, list[bool]]:
    """``send`` wrapped to note whether the response started, and the note (``started[0]``)."""
    started = [False]

    async def sender(message: Message) -> None:
        if message["type"] == "http.response.start":
            started[0] = True
        await send(message)

    return sender, started


class ProblemBoundary(ExceptionMiddleware):
    """Starlette's ``ExceptionMiddleware``, deciding every HTTP request exactly as it does."""

    def __init__(self, app: ASGIApp, handlers: Any = None, debug: bool = False) -> None:
        super().__init__(app, handlers=handlers, debug=debug)
        self._handler_tables = (self._exception_handlers, self._status_handlers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        scope["starlette.exception_handlers"] = self._handler_tables
        sender, started = _tracking(send)
        try:
            await self.app(scope, receive, sender)
        except Exception as exc:
            await self.handle(exc, scope, receive, send, sender, started[0])

    async def handle(
        self, exc: Exception, scope: Scope, receive: Receive, send: Send, sender: Send, started: bool
    ) -> None:
        """Answer ``exc`` with its handler through ``sender``, or raise it again (none, or too late).

        ``send`` is what this boundary was called with (the handler's ``Request`` gets it, as in
        Starlette), ``sender`` the same wrapped to note the response start.
        """
        handler = None
        if isinstance(exc, HTTPException):
            handler = self._status_handlers.get(exc.status_code)
        if handler is None:
            handler = _lookup_exception_handler(self._exception_handlers, exc)
        if handler is None:
            raise exc
        if started:
            raise RuntimeError("Caught handled exception, but response already started.") from exc
        request = Request(scope, receive, send)
        if is_async_callable(handler):
            response = await handler(request, exc)  # type: ignore[arg-type]
        else:
            response = await run_in_threadpool(handler, request, exc)
        if response is not None:
            await response(scope, receive, sender)
        exc.__traceback__ = None  # a reused exception instance would grow a traceback per request


class ErrorBoundary(ServerErrorMiddleware):
    """``ServerErrorMiddleware`` around :class:`ProblemBoundary`, as one layer.

    For an App with no middleware between the two boundaries, each of which would otherwise
    wrap ``send`` to learn whether the response started: with nothing between them they see
    the same messages, so one wrapper serves both. Every HTTP request is decided as the two
    layers decide it (a test runs every case through both); other scopes go through the two
    layers themselves.
    """

    def __init__(self, problems: ProblemBoundary, handler: Any = None, debug: bool = False) -> None:
        super().__init__(problems, handler=handler, debug=debug)
        self._problems = problems

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        problems = self._problems
        scope["starlette.exception_handlers"] = problems._handler_tables
        sender, started = _tracking(send)
        try:
            try:
                await problems.app(scope, receive, sender)
            except Exception as exc:
                # The problem boundary's send is the server error boundary's wrapper: ``sender``.
                await problems.handle(exc, scope, receive, sender, sender, started[0])
        except Exception as exc:
            # What ServerErrorMiddleware does, its response_started being ``started[0]``.
            request = Request(scope)
            if self.debug:
                response = await run_in_threadpool(self.debug_response, request, exc)
            elif self.handler is None:
                response = self.error_response(request, exc)
            elif is_async_callable(self.handler):
                response = await self.handler(request, exc)  # type: ignore[assignment, arg-type]
            else:
                response = await run_in_threadpool(self.handler, request, exc)  # type: ignore[arg-type]
            if not started[0]:
                await response(scope, receive, send)
            raise exc


def build_stack(app: Starlette) -> ASGIApp:
    """``app.build_middleware_stack()``, with :class:`ProblemBoundary` and the router entered directly."""
    if app.max_body_size is not None:
        raise ValueError("an fw App limits request bodies itself (server.max_request_body)")
    error_handler = None
    handlers: dict[Any, Any] = {}
    for key, value in app.exception_handlers.items():
        if key in (500, Exception):
            error_handler = value
        else:
            handlers[key] = value
    problems = ProblemBoundary(app.router.middleware_stack, handlers=handlers, debug=app.debug)
    if not app.user_middleware:
        return ErrorBoundary(problems, handler=error_handler, debug=app.debug)
    stack: ASGIApp = problems
    for cls, args, kwargs in reversed(app.user_middleware):
        stack = cls(stack, *args, **kwargs)
    return ServerErrorMiddleware(stack, handler=error_handler, debug=app.debug)
