"""The App's request path in one layer: the middleware's decisions, the route, the handler, errors.

For an HTTP request, in order: the router finds the route (:mod:`fw.core.router`) and its
template is recorded; every middleware decides (:mod:`fw.core.middleware`); the handler is called
with the ``Request``; its response is sent, with the middleware's amend hooks applied. A mounted
application, a redirect, a 405 or a 404 take the router's other branch.

Errors are decided here, where it is known whether the response started (:mod:`fw.core.boundary`
says what each exception becomes). Everything up to the handler's return happens before anything
is sent, so an exception there is always answered: a problem with the amend hooks (a session
cookie still gets renewed on a 409), a bug with the opaque 500 (and raised on). A response of one
of Starlette's own body-carrying classes sends its start and body in one go, where only the
server's ``send`` can fail: such a failure is raised on as it is. Any other response (streaming,
a file, a class of the application's own) and a mounted application are watched by a
:class:`~fw.core.boundary.Tracker`, so that only an exception before their start is answered.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fw.caching import SESSION_DEPENDENT, forbid_storing
from fw.core.boundary import Tracker, problem_response, server_error
from fw.core.middleware import Amend, Middleware, amended, answer
from fw.core.router import ROUTE_KEY, Router, route_path
from fw.core.routes import Mount
from fw.problem_pages import for_people

#: ``Response.__call__``: a response class keeping it sends its start and body and nothing else
#: can fail before the start (background tasks run after the body).
_PLAIN_CALL = Response.__call__


class RequestPath:
    """``router`` behind ``middleware``, with the error boundary (see :mod:`fw.core.serve`)."""

    __slots__ = ("debug", "middleware", "pages", "router")

    def __init__(
        self,
        router: Router,
        middleware: Sequence[Middleware] = (),
        *,
        debug: bool = False,
        pages: bool = True,
    ) -> None:
        self.router = router
        self.middleware = tuple(middleware)
        self.debug = debug
        #: Whether problems become pages here for a person's browser (:func:`fw.problem_pages.for_people`);
        #: ``False`` when the App already wraps ``send`` for that, ahead of middleware of its own.
        self.pages = pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        amends: list[Amend] | None = None
        mount: ASGIApp | None = None
        # The route is found first, so that a request the middleware refuse still names the route
        # it asked for (the access log, metrics); it is served only once they all handed it on.
        path = route_path(scope) if scope.get("root_path") else scope["path"]
        found = self.router.find(scope["method"], path) if scope["type"] == "http" else None
        if found is not None:
            scope[ROUTE_KEY] = found[0].template
        try:
            # The decisions, as fw.core.middleware.Pipeline takes them, inline: no coroutine per
            # request for the usual decision, which needs nothing awaited.
            for middleware in self.middleware:
                decision = middleware.decide(scope)
                if decision is None:
                    continue
                if not isinstance(decision, Response) and not callable(decision):
                    decision = await decision
                    if decision is None:
                        continue
                if isinstance(decision, Response):
                    await answer(decision, scope, receive, self._send(decision, scope, send, amends))
                    return
                if amends is None:
                    amends = [decision]
                else:
                    amends.append(decision)
            if found is None:
                unrouted = self.router.unrouted(scope, path)
                if isinstance(unrouted, Response):
                    response = unrouted  # the redirect
                else:  # a mounted application (or a WebSocket's close), called below, watched
                    mount = unrouted.app if isinstance(unrouted, Mount) else unrouted
            else:
                route, params = found
                if params:
                    existing = scope.get("path_params")
                    scope["path_params"] = {**existing, **params} if existing else params
                response = await route.call(Request(scope, receive, send))
                if SESSION_DEPENDENT in scope:  # the handler asked who is signed in (fw.auth.user)
                    forbid_storing(response.headers)
        except Exception as exc:
            if scope["type"] != "http":
                raise
            handled = problem_response(exc)
            if handled is None:
                failure = server_error(exc, scope, self.debug)
                await failure(scope, receive, self._send(failure, scope, send, None))
                raise
            exc.__traceback__ = None  # a reused exception instance would grow a traceback per request
            response = handled
        if mount is not None:
            await self._watched(mount, scope, receive, self._send(None, scope, send, amends))
        elif type(response).__call__ is _PLAIN_CALL:
            if amends or response.status_code >= 400:  # else: sent as it is, the usual answer
                send = self._send(response, scope, send, amends)
            await response(scope, receive, send)
        else:
            await self._watched(response, scope, receive, self._send(None, scope, send, amends))

    def _send(self, response: Response | None, scope: Scope, send: Send, amends: list[Amend] | None) -> Send:
        """``send`` for an answer: problems as pages for a person (any answer but a known
        success: ``response`` is ``None`` for what is not known before it starts), then the
        middleware's amend hooks."""
        if self.pages and (response is None or response.status_code >= 400) and scope["type"] == "http":
            send = for_people(scope, send)
        return amended(send, amends) if amends else send

    async def _watched(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        """``app`` (a mounted application, a response of another class), its errors answered
        as long as its response has not started."""
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        tracker = Tracker(send)
        try:
            await app(scope, receive, tracker.send)
        except Exception as exc:
            if tracker.started:
                raise
            handled = problem_response(exc)
            if handled is None:
                await server_error(exc, scope, self.debug)(scope, receive, send)
                raise
            exc.__traceback__ = None
            await handled(scope, receive, send)
