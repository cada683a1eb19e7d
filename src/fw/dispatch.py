"""Request dispatch: a route found by a lookup or one combined pattern, and a handler called directly.

Starlette's router tries each route in order, a regular-expression match (and a Python call)
per route, and hands the request to the first full match. The :class:`StaticFirstRouter` finds
that same route two cheaper ways before it scans:

* most routes of an API have a fixed path, so a table ``(path, method) -> route`` holds exactly
  those pairs where the scan would pick that same route. A pair is entered only when every
  route before it is one whose match depends on nothing but the path and the method
  (``Route``, ``Mount``, ``WebSocketRoute``) and none of them fully matches the pair, so the
  table never picks another route than the scan would;
* for the rest, :class:`CompiledRoutes` joins the path patterns of the leading plain routes
  (:func:`leading_plain_routes`) into one alternation per method, in route order. Python's
  ``re`` tries alternatives left to right, so the first alternative matching the path is the
  first route of that method whose pattern matches: the route the scan would fully match. That
  route's own ``matches`` then reads the parameters, exactly as in the scan.

Everything else (mounts and what follows them, 405, redirects, 404) takes Starlette's scan
unchanged.

:func:`handler_app` is the ASGI app of one ``@app.route`` handler. Starlette's own wrapper
catches the handler's exceptions a second time, with the same handlers the exception boundary
innermost in every fw App (:class:`fw.stack.ProblemBoundary`) applies anyway, and wraps
``send`` to do so; fw lets the exception reach that boundary, which renders the same response.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette._utils import get_route_path, is_async_callable
from starlette.concurrency import run_in_threadpool
from starlette.convertors import (
    FloatConvertor,
    IntegerConvertor,
    PathConvertor,
    StringConvertor,
    UUIDConvertor,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route, Router, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from fw.caching import SESSION_DEPENDENT, forbid_storing

#: Routes whose ``matches`` reads only the path, the method and the scope type.
_PATH_ONLY = (Route, Mount, WebSocketRoute)
#: Starlette's own convertors, whose ``convert`` cannot fail on what their pattern matched.
_OWN_CONVERTORS = (StringConvertor, PathConvertor, IntegerConvertor, FloatConvertor, UUIDConvertor)
#: A named group of a route's pattern (``re.escape`` leaves no such text in a literal part).
_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


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


def leading_plain_routes(routes: Sequence[BaseRoute]) -> list[Route]:
    """The routes before the first one an HTTP request could match otherwise than by its pattern.

    That is ``Route`` itself (not a subclass, which may match differently) with Starlette's own
    convertors: a custom convertor's ``convert`` may raise, and the scan would raise it even
    for a route matching only the path. ``WebSocketRoute`` never matches HTTP and is passed
    over; anything else (a ``Mount``, a ``Host``) ends the run.
    """
    run: list[Route] = []
    for route in routes:
        if type(route) is WebSocketRoute:
            continue
        if type(route) is not Route:
            break
        if any(type(convertor) not in _OWN_CONVERTORS for convertor in route.param_convertors.values()):
            break
        run.append(route)
    return run


class _Alternation:
    """One method's routes as one pattern: each route's pattern a group, in route order."""

    __slots__ = ("pattern", "routes")

    def __init__(self, routes: Sequence[Route]) -> None:
        alternatives = []
        for index, route in enumerate(routes):
            # The route's own groups become plain ones: names may repeat across routes.
            alternatives.append(f"(?P<_{index}>{_NAMED_GROUP.sub('(?:', route.path_regex.pattern)})")
        self.pattern = re.compile("|".join(alternatives))
        group = self.pattern.groupindex
        self.routes = {group[f"_{index}"]: route for index, route in enumerate(routes)}

    def first(self, path: str) -> Route | None:
        found = self.pattern.match(path)
        return None if found is None else self.routes.get(found.lastindex or 0)


class CompiledRoutes:
    """The first plain route that fully matches a path and method, found by one pattern match."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        run = leading_plain_routes(routes)
        methods = sorted({method for route in run for method in route.methods or ()})
        self._by_method = {
            m: self._alternation([r for r in run if not r.methods or m in r.methods]) for m in methods
        }
        # A method no route names: only the routes taking every method can fully match it.
        self._any_method = self._alternation([route for route in run if not route.methods])

    @staticmethod
    def _alternation(routes: list[Route]) -> _Alternation | None:
        if not routes:
            return None
        try:
            return _Alternation(routes)
        except (re.error, RecursionError, OverflowError):
            return None  # the scan finds these routes as it always did

    def first(self, path: str, method: str) -> Route | None:
        """The route the scan would fully match among the leading plain routes, if any."""
        alternation = self._by_method.get(method, self._any_method)
        return None if alternation is None else alternation.first(path)


class StaticFirstRouter(Router):
    """Starlette's router, trying :func:`static_table`, then :class:`CompiledRoutes`, then its scan."""

    def __init__(self, routes: Sequence[BaseRoute], **options: Any) -> None:
        super().__init__(routes, **options)
        self._static = static_table(self.routes)
        self._compiled = CompiledRoutes(self.routes)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path, method = get_route_path(scope), scope["method"]
            route = self._static.get((path, method))
            if route is not None:
                # What the scan does for a full match of a route without parameters.
                if "router" not in scope:
                    scope["router"] = self
                scope["route"] = route
                scope["endpoint"] = route.endpoint
                scope["path_params"] = dict(scope.get("path_params", {}))
                await route.app(scope, receive, send)
                return
            route = self._compiled.first(path, method)
            if route is not None:
                match, child_scope = route.matches(scope)
                if match is Match.FULL:  # always, for the route the pattern chose
                    # What the scan does for a full match.
                    if "router" not in scope:
                        scope["router"] = self
                    scope["route"] = route
                    scope.update(child_scope)
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
        if SESSION_DEPENDENT in scope:  # the handler asked who is signed in (fw.auth.user)
            forbid_storing(response.headers)
        await response(scope, receive, send)

    return app
