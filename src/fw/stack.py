"""The middleware stack of an App: Starlette's composition, with less done per request.

Starlette composes, from the outside in: ``ServerErrorMiddleware`` (the 500 boundary), the
application's and the pillars' middleware, its ``ExceptionMiddleware`` (the boundary for
handled exceptions: fw's problems and ``HTTPException``), then the router. fw keeps exactly
that order and behaviour, and changes what two layers cost on every HTTP request:

* :class:`ProblemBoundary` is ``ExceptionMiddleware`` without the per-request objects it builds
  before anything fails: a ``Request`` for the handler and a wrapper closure around a second
  wrapper closure. It builds the ``Request`` only when an exception needs a handler, and tracks
  whether the response started with one small object. WebSockets and other scopes go through
  ``ExceptionMiddleware`` itself.
* :class:`ErrorBoundary` is ``ServerErrorMiddleware`` and :class:`ProblemBoundary` sharing one
  ``send`` wrapper, used when every middleware between them either calls the app or answers by
  itself, never both (:data:`FORWARDS_SEND`): when the problem boundary receives the outer
  wrapper unchanged, both see the same messages, so one wrapper serves both. With no
  middleware at all it is a single layer: one coroutine instead of two.
* middleware offering :data:`BEFORE` (fw's bearer middleware) is called as a hook by the
  :class:`ErrorBoundary` when every middleware between the boundaries offers it: a plain call
  deciding the request before the app, instead of a coroutine layer (and the problem
  boundary's layer) per request; a request the hook cannot decide without awaiting is handed
  to the middleware's own path.
* the router is entered at its own middleware stack (``Router.__call__`` only forwards there).

The App calls the stack itself and sets ``scope["app"]`` as ``Starlette.__call__`` does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
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

#: A middleware class attribute: ``True`` promises that the middleware, on an HTTP request,
#: either calls the app once (with the ``send`` it was given, or a wrapper of it) or answers by
#: itself, never both. Such middleware may sit inside an :class:`ErrorBoundary`.
FORWARDS_SEND = "fw_forwards_send"

#: A middleware method, ``fw_before(scope)``, offered by middleware that also forwards send
#: (:data:`FORWARDS_SEND`): the middleware's own decision on an HTTP request, made without
#: awaiting, exactly as its ``__call__`` would make it. It answers ``None`` when the app is to be
#: called with the same ``send`` (anything the middleware found is recorded in the scope), a
#: pair of messages (``http.response.start``, ``http.response.body``) to answer with instead,
#: or, for a request that needs what only the middleware itself does (awaiting, wrapping
#: ``send``), the coroutine function serving it as the middleware would, called with the
#: request's ``(scope, receive, send)``.
BEFORE = "fw_before"

#: How a middleware serves a request its :data:`BEFORE` hook hands over.
Serve = Callable[[Scope, Receive, Send], Awaitable[None]]

#: What a :data:`BEFORE` hook answers.
Decision = tuple[Message, Message] | Serve | None


class _Tracker:
    """``send`` (:meth:`send`) that notes whether the response started (``started``)."""

    __slots__ = ("_send", "started")

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


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
        tracker = getattr(send, "__self__", None)
        if type(tracker) is _Tracker:  # an ErrorBoundary's, forwarded as it was: it sees what this would
            sender = send
        else:
            tracker = _Tracker(send)
            sender = tracker.send
        try:
            await self.app(scope, receive, sender)
        except Exception as exc:
            await self.handle(exc, scope, receive, send, sender, tracker.started)

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
    """``ServerErrorMiddleware`` whose ``send`` wrapper the :class:`ProblemBoundary` inside reuses.

    ``inner`` is the middleware between the two boundaries, ending at ``problems``, every one
    of which calls the app or answers by itself, never both (:data:`FORWARDS_SEND`); ``None``
    when there is none, and this layer then does the problem boundary's work itself. When the
    problem boundary receives this layer's wrapper unchanged, a message reaches its ``send``
    exactly when it reaches this one's, so the wrapper notes the response start for both.

    ``hooks`` is given when every one of those middleware offers :data:`BEFORE`: their hooks,
    outermost first. An HTTP request then asks the hooks in order and, when none answers, this
    layer does the problem boundary's work itself; a hook handing the request over has its
    middleware's own path serve it, with the rest of the chain inside it.

    Every HTTP request is decided as the two layers decide it (tests run every case through
    both); other scopes go through the two layers themselves.
    """

    def __init__(
        self,
        problems: ProblemBoundary,
        handler: Any = None,
        debug: bool = False,
        inner: ASGIApp | None = None,
        hooks: Sequence[Callable[[Scope], Decision]] | None = None,
    ) -> None:
        super().__init__(problems if inner is None else inner, handler=handler, debug=debug)
        self._problems = problems if inner is None or hooks is not None else None
        self._hooks = tuple(hooks or ())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        tracker = _Tracker(send)
        sender = tracker.send
        try:
            problems = self._problems
            if problems is None:
                await self.app(scope, receive, sender)  # the middleware, then the problem boundary
                return
            for before in self._hooks:
                decision = before(scope)
                if decision is None:
                    continue
                if isinstance(decision, tuple):
                    await sender(decision[0])
                    await sender(decision[1])
                else:
                    await decision(scope, receive, sender)  # the middleware, the chain inside it
                return
            scope["starlette.exception_handlers"] = problems._handler_tables
            try:
                await problems.app(scope, receive, sender)
            except Exception as exc:
                # The problem boundary's send is the server error boundary's wrapper: ``sender``.
                await problems.handle(exc, scope, receive, sender, sender, tracker.started)
        except Exception as exc:
            # What ServerErrorMiddleware does, its response_started being ``tracker.started``.
            request = Request(scope)
            if self.debug:
                response = await run_in_threadpool(self.debug_response, request, exc)
            elif self.handler is None:
                response = self.error_response(request, exc)
            elif is_async_callable(self.handler):
                response = await self.handler(request, exc)  # type: ignore[assignment, arg-type]
            else:
                response = await run_in_threadpool(self.handler, request, exc)  # type: ignore[arg-type]
            if not tracker.started:
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
    stack: ASGIApp = problems
    layers: list[ASGIApp] = []
    for cls, args, kwargs in reversed(app.user_middleware):
        stack = cls(stack, *args, **kwargs)
        layers.insert(0, stack)
    if not all(getattr(cls, FORWARDS_SEND, False) for cls, _, _ in app.user_middleware):
        return ServerErrorMiddleware(stack, handler=error_handler, debug=app.debug)
    if not layers:
        return ErrorBoundary(problems, handler=error_handler, debug=app.debug)
    hooks = None
    if all(callable(getattr(layer, BEFORE, None)) for layer in layers):
        hooks = [getattr(layer, BEFORE) for layer in layers]
    return ErrorBoundary(problems, handler=error_handler, debug=app.debug, inner=stack, hooks=hooks)
