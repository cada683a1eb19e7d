"""The one middleware protocol of fw: a decision on each request, made before its route is served.

An extension's middleware (authentication is one) implements :class:`Middleware` once. For each
HTTP request or WebSocket handshake, in the order the App composed them, the pipeline asks every
middleware's :meth:`Middleware.decide`, which answers with a :data:`Decision`:

* ``None``: hand the request on unchanged (anything found is recorded in the scope);
* a ``Response``: answer with it; the route and the middleware after this one are not reached
  (a WebSocket handshake is closed with code 1008 instead);
* an :data:`Amend`: hand the request on, and call the function with the response's headers when
  the response starts (a cookie to set, a header to add), whoever answers;
* an awaitable of one of these, when deciding needs I/O (a session store, a key fetch). Returning
  the awaitable only when it is needed keeps the common request free of a coroutine.

There is no second path: the decision is the middleware's whole say on a request. A middleware
raising :class:`fw.Problem` is answered with that problem, as a handler raising it is.

::

    request ──> decide (1) ──> decide (2) ──> ... ──> router ──> handler
                   │ Response        │ Response                     │
                   └─> answer        └─> answer                     │
                 amend hooks <──────────────────────── response start
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeAlias

from starlette.datastructures import MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Called with the response's headers when it starts: the one change a middleware makes to it.
Amend: TypeAlias = Callable[[MutableHeaders], None]

#: What :meth:`Middleware.decide` answers (see the module's description).
Decision: TypeAlias = Response | Amend | Awaitable["Response | Amend | None"] | None


class Middleware(Protocol):
    """A decision on every HTTP request and WebSocket handshake (see :mod:`fw.core.middleware`)."""

    def decide(self, scope: Scope) -> Decision: ...


class Pipeline:
    """``middleware`` in order, then ``app``: fw's middleware guarding any other ASGI application.

    Its signature is an ASGI middleware's: ``starlette.middleware.Middleware(Pipeline,
    middleware=[...])``. An fw App takes the same decisions in its own request path
    (:class:`fw.core.serve.RequestPath`), where they need no layer of their own.
    """

    __slots__ = ("app", "middleware")

    def __init__(self, app: ASGIApp, middleware: Sequence[Middleware]) -> None:
        self.app = app
        self.middleware = tuple(middleware)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        amends: list[Amend] | None = None
        # fw.core.serve.RequestPath repeats this loop inline, on purpose (its hot path takes no
        # extra coroutine per request): a change to how decisions are taken goes into both.
        for middleware in self.middleware:
            decision = middleware.decide(scope)
            if decision is None:
                continue
            if not isinstance(decision, Response) and not callable(decision):
                decision = await decision
                if decision is None:
                    continue
            if isinstance(decision, Response):
                await answer(decision, scope, receive, amended(send, amends) if amends else send)
                return
            if amends is None:
                amends = [decision]
            else:
                amends.append(decision)
        await self.app(scope, receive, amended(send, amends) if amends else send)


async def answer(response: Response, scope: Scope, receive: Receive, send: Send) -> None:
    """Send ``response`` for an HTTP request; close a refused WebSocket handshake (policy violation)."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    await response(scope, receive, send)


def amended(send: Send, amends: Sequence[Amend]) -> Send:
    """``send`` calling every amend hook, in order, with the headers of the response's start."""

    async def send_amended(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for amend in amends:
                amend(headers)
        await send(message)

    return send_amended
