"""fw's router: the first route, in order, that matches a request's path and method.

The rule is the simplest one: routes are tried in the order the App composed them (the
extensions' routes, the application's, the OpenAPI document and reference, then mounts), and the
first whose path and method match serves the request. Finding it does not scan:

* a route without parameters is found in a table ``(path, method) -> route``, entered only where
  no earlier route also matches that path and method, so the table picks what the scan would;
* the others are found by one regular expression per method joining every route's pattern as
  an alternative, in route order: Python's ``re`` tries alternatives left to right, so the first
  alternative that matches is the first matching route;
* mounts come after every route and are tried by prefix.

When nothing matches: a path some route serves for other methods is a 405 with ``Allow``; a path
that matches once a trailing slash is added or removed is redirected there (307); anything else
is a 404. All three are problems (:class:`fw.Problem`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from starlette.datastructures import URL, URLPath
from starlette.responses import RedirectResponse, Response
from starlette.types import Scope
from starlette.websockets import WebSocketClose

from fw.core.routes import BaseRoute, Mount, Route
from fw.problems import Problem

#: Where the router records the matched route's template (``/orders/{id}``), for observability.
ROUTE_KEY = "fw.route"

_NAMED_GROUP = re.compile(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>")
_NOT_FOUND = Problem(status=404, code="not_found")


def route_path(scope: Scope) -> str:
    """The request's path below the root path it is served under (what routes match)."""
    path: str = scope["path"]
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        if path == root:
            return ""
        if path[len(root)] == "/":
            return path[len(root) :]
    return path


class _Alternation:
    """Routes as one pattern, each route's pattern an alternative, in route order."""

    __slots__ = ("names", "pattern", "routes")

    def __init__(self, routes: Sequence[Route]) -> None:
        alternatives = []
        names: list[tuple[str, ...]] = []
        for index, route in enumerate(routes):
            # Each route's parameters become numbered groups: names may repeat across routes.
            inner = _NAMED_GROUP.sub(lambda m: "(", route.regex.pattern[1:-1])
            alternatives.append(f"(?P<_{index}>{inner})")
            names.append(route.names)
        self.pattern = re.compile("^(?:" + "|".join(alternatives) + ")$")
        group = self.pattern.groupindex
        self.routes = {group[f"_{index}"]: (route, names[index]) for index, route in enumerate(routes)}

    def first(self, path: str) -> tuple[Route, dict[str, str]] | None:
        found = self.pattern.match(path)
        if found is None:
            return None
        # The first alternative that matched is the last group opened at the top level.
        index = found.lastindex or 0
        while index not in self.routes:  # a parameter group of the route opened last
            index -= 1
        route, names = self.routes[index]
        values = found.groups()[index : index + len(names)]
        return route, dict(zip(names, values, strict=True))


class Router:
    """The routes of one App (see :mod:`fw.core.router`)."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes = list(routes)
        plain = [route for route in self.routes if isinstance(route, Route)]
        self.mounts = [route for route in self.routes if isinstance(route, Mount)]
        self._static = _static_table(plain)
        methods = sorted({method for route in plain for method in route.methods or ()})
        self._by_method = {m: _alternation([r for r in plain if r.accepts(m)]) for m in methods}
        self._any_method = _alternation([route for route in plain if route.methods is None])
        self._plain = plain

    def find(self, method: str, path: str) -> tuple[Route, Mapping[str, str]] | None:
        """The route serving ``method`` at ``path`` and its parameters, or ``None``.

        A parameterless route's answer is built once, with one shared empty mapping that nobody
        may change (a read-only view): the usual request allocates nothing to find its route.
        """
        by_method = self._static.get(path)
        if by_method is not None:
            answer = by_method.get(method)
            if answer is not None:
                return answer
        alternation = self._by_method.get(method, self._any_method)
        return None if alternation is None else alternation.first(path)

    def unrouted(self, scope: Scope, path: str) -> Mount | Response | WebSocketClose:
        """What serves a request no route does: the mount whose prefix it is under, or the redirect
        to the path with the trailing slash added or removed; raises the 405 or 404 problem. A
        WebSocket handshake no mount serves is closed.

        A mount found has ``root_path`` extended by its prefix in the scope, as the ASGI
        specification describes a mounted application's scope.
        """
        for mount in self.mounts:
            if mount.matches(path):
                scope[ROUTE_KEY] = mount.template
                root = scope.get("root_path", "")
                scope["app_root_path"] = scope.get("app_root_path", root)
                scope["root_path"] = root + mount.prefix
                return mount
        if scope["type"] != "http":
            return WebSocketClose()
        allowed = self._allowed(path)
        if allowed:
            raise Problem(status=405, code="method_not_allowed", headers={"Allow": allowed})
        redirect = self._redirect(scope, path)
        if redirect is not None:
            return RedirectResponse(redirect)
        raise _NOT_FOUND

    def _allowed(self, path: str) -> str:
        """The ``Allow`` header of the first route matching ``path`` for another method, or ``""``."""
        for route in self._plain:
            if route.regex.match(path):
                return route.allow()
        return ""

    def _redirect(self, scope: Scope, path: str) -> str | None:
        """The URL with the trailing slash added or removed, when a route or mount serves it."""
        if path in ("", "/"):
            return None
        other = path[:-1] if path.endswith("/") else path + "/"
        if not any(route.regex.match(other) for route in self._plain) and not any(
            mount.matches(other) for mount in self.mounts
        ):
            return None
        full = scope["path"]
        redirect_scope = dict(scope, path=full[:-1] if full.endswith("/") else full + "/")
        return str(URL(scope=redirect_scope))

    def url_path_for(self, name: str, /, **params: Any) -> URLPath:
        """The path of the route called ``name`` with ``params`` (what ``request.url_for`` asks)."""
        for route in self._named(name):
            path = route.url_path(params) if isinstance(route, Route) else None
            if path is not None:
                return URLPath(path=path)
            if isinstance(route, Mount) and set(params) <= {"path"}:
                return URLPath(path=route.prefix + "/" + str(params.get("path", "")).lstrip("/"))
        raise LookupError(f"no route called {name!r} takes the parameters {sorted(params)}")

    def _named(self, name: str) -> Iterator[BaseRoute]:
        return (route for route in self.routes if route.name == name)


def _alternation(routes: Sequence[Route]) -> _Alternation | None:
    return _Alternation(routes) if routes else None


#: The parameters of every parameterless route: one read-only empty mapping.
NO_PARAMS: Mapping[str, str] = MappingProxyType({})


def _static_table(routes: Sequence[Route]) -> dict[str, dict[str, tuple[Route, Mapping[str, str]]]]:
    """``path -> method -> (route, NO_PARAMS)`` for each parameterless route the in-order scan would pick."""
    table: dict[str, dict[str, tuple[Route, Mapping[str, str]]]] = {}
    for index, route in enumerate(routes):
        if route.names or route.methods is None:
            continue
        for method in sorted(route.methods):
            if method in table.get(route.path, {}):
                continue
            if any(earlier.accepts(method) and earlier.regex.match(route.path) for earlier in routes[:index]):
                continue
            table.setdefault(route.path, {})[method] = (route, NO_PARAMS)
    return table
