"""Request dispatch: a static route found by one dictionary lookup, and a handler called directly.

Starlette's router tries each route in order, a regular-expression match per route, and hands
the request to the first full match. Most routes of an API have a fixed path, so the
:class:`StaticFirstRouter` keeps a table ``(path, method) -> route`` for exactly those pairs where
the scan would pick that same route, and answers from it before scanning. A pair is entered only
when every route before it is one whose match depends on nothing but the path and the method
(``Route``, ``Mount``, ``WebSocketRoute``) and none of them fully matches the pair, so the
table never picks another route than the scan would. Everything else (parameters, mounts,
405, redirects, 404) takes Starlette's scan unchanged.

:func:`handler_app` is the ASGI app of one ``@app.route`` handler. Starlette's own wrapper
catches the handler's exceptions a second time, with the same handlers the exception boundary
innermost in every fw App (:class:`fw.stack.ProblemBoundary`) applies anyway, and wraps
``send`` to do so; fw lets the exception reach that boundary, which renders the same response.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette._utils import get_route_path, is_async_callable
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route, Router, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

#: Routes whose ``matches`` reads only the path, the method and the scope type.
_PATH_ONLY = (Route, Mount, WebSocketRoute)


def static_table(routes: Sequence[BaseRoute]) -> dict[tuple[str, str], Route]:
    """``(path, method) -> route`` for every fixed-path route the in-order scan would pick."""
    table: dict[tuple[str, str], Route] = {}
    for index, route in enumerate(routes):
        if type(route) not in _PATH_ONLY:
            break  # a route matching on something else (a Host, a custom route) may match anything
        if type(route) is not Route or route.param_convertors or not route.methods:
            continue
        for method in sorted(route.methods):
            key = (route.path, method)
            if key in table or any(_fully_matches(earlier, *key) for earlier in routes[:index]):
                continue
            table[key] = route
    return table


def _fully_matches(route: BaseRoute, path: str, method: str) -> bool:
    probe: Scope = {"type": "http", "path": path, "root_path": "", "method": method, "path_params": {}}
    return route.matches(probe)[0] is Match.FULL


class StaticFirstRouter(Router):
    """Starlette's router, answering fixed-path routes from :func:`static_table` first."""

    def __init__(self, routes: Sequence[BaseRoute], **options: Any) -> None:
        super().__init__(routes, **options)
        self._static = static_table(self.routes)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            route = self._static.get((get_route_path(scope), scope["method"]))
            if route is not None:
                # What the scan does for a full match of a route without parameters.
                if "router" not in scope:
                    scope["router"] = self
                scope["route"] = route
                scope["endpoint"] = route.endpoint
                scope["path_params"] = dict(scope.get("path_params", {}))
                await route.app(scope, receive, send)
                return
        await super().app(scope, receive, send)


def handler_app(handler: Callable[[Request], Awaitable[Response] | Response]) -> ASGIApp:
    """The ASGI app calling ``handler``; a plain function runs in the thread pool, as in Starlette."""
    call: Callable[[Request], Awaitable[Response]] = (
        handler if is_async_callable(handler) else functools.partial(run_in_threadpool, handler)  # type: ignore[assignment,call-arg]
    )

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await call(Request(scope, receive, send))
        await response(scope, receive, send)

    return app
