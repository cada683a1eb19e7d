"""The App's error boundary: every exception of a request becomes the problem it stands for.

* :class:`fw.Problem` (and what derives from it) is answered with its own problem document;
* Starlette's ``HTTPException``, which a handler may raise, with a problem of its status;
* anything else is a bug: logged with its traceback, answered with the opaque 500 problem, and
  raised again, so that the server logs it too and a test client raises it in the test.

An exception after the response started cannot be answered any more: it is raised on as it is.
``debug=True`` answers an unexpected exception with Starlette's traceback page instead.
"""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fw.problems import Problem

logger = logging.getLogger("fw")

_CODES = {404: "not_found", 405: "method_not_allowed"}


def problem_response(exc: Exception) -> Response | None:
    """The answer to a handled exception (a problem, an ``HTTPException``); ``None`` for a bug."""
    if isinstance(exc, Problem):
        return exc.response()
    if isinstance(exc, HTTPException):
        code = _CODES.get(exc.status_code, "http_error")
        return Problem(status=exc.status_code, code=code, headers=exc.headers).response()
    return None


def server_error(exc: Exception, scope: Scope, debug: bool) -> Response:
    """The 500 for an unexpected exception, logged with its traceback."""
    if debug:
        return ServerErrorMiddleware(_unused, debug=True).debug_response(Request(scope), exc)
    logger.exception("unhandled error in %s %s", scope.get("method", ""), scope.get("path", ""), exc_info=exc)
    return Problem(status=500, code="internal_error").response()


async def _unused(scope: Scope, receive: Receive, send: Send) -> None:  # pragma: no cover
    raise RuntimeError("only the debug page of the error middleware is used")


class Tracker:
    """``send`` (:meth:`send`) that notes whether the response started (``started``)."""

    __slots__ = ("_send", "started")

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


class ErrorBoundary:
    """``app`` with every exception of an HTTP request answered (see :mod:`fw.core.boundary`)."""

    __slots__ = ("app", "debug")

    def __init__(self, app: ASGIApp, *, debug: bool = False) -> None:
        self.app = app
        self.debug = debug

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tracker = Tracker(send)
        try:
            await self.app(scope, receive, tracker.send)
        except Exception as exc:
            if tracker.started:
                raise
            response = problem_response(exc)
            if response is not None:
                exc.__traceback__ = None  # a reused exception instance would grow a traceback per request
                await response(scope, receive, send)
                return
            await server_error(exc, scope, self.debug)(scope, receive, send)
            raise
