"""The routes of an App: a handler at a path template, or an ASGI application mounted under a prefix.

A template names its parameters in braces: ``{name}`` is one path segment, ``{name:path}`` the rest
of the path (slashes included). Those are the only two kinds: fw's own patterns
(:func:`fw.routing.parse_pattern`) translate to exactly these, and the values reach a handler as
the strings the path held, unconverted, as the binder expects them.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from fw.core.handlers import as_coroutine_function

#: What an endpoint is: a function from the request to the response, async or not.
Endpoint = Callable[[Request], Awaitable[Response]] | Callable[[Request], Response]

_PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")
_KINDS = {"str": "[^/]+", "path": ".*"}


def compile_template(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """The full-match pattern of ``template`` and its parameter names, in order.

    Raises ``ValueError`` for a parameter kind other than ``str`` and ``path``, or a name used twice.
    """
    pattern = ["^"]
    names: list[str] = []
    position = 0
    for found in _PARAMETER.finditer(template):
        name, kind = found.group(1), found.group(2) or "str"
        if kind not in _KINDS:
            raise ValueError(f"route {template!r}: unknown parameter kind {kind!r} (str or path)")
        if name in names:
            raise ValueError(f"route {template!r}: parameter {name!r} appears twice")
        names.append(name)
        pattern.append(re.escape(template[position : found.start()]))
        pattern.append(f"(?P<{name}>{_KINDS[kind]})")
        position = found.end()
    pattern.append(re.escape(template[position:]))
    pattern.append("$")
    return re.compile("".join(pattern)), tuple(names)


class BaseRoute:
    """What the router holds: a :class:`Route` or a :class:`Mount`."""

    __slots__ = ("name", "path")

    path: str
    name: str | None


class Route(BaseRoute):
    """``endpoint`` answering ``methods`` (every method when ``None``) at ``path``.

    ``GET`` also answers ``HEAD``. ``template`` is what observability reports as the route (the
    App passes the pattern as its author wrote it; an extension's route reports its path).
    """

    __slots__ = ("call", "endpoint", "methods", "names", "regex", "template")

    def __init__(
        self,
        path: str,
        endpoint: Endpoint,
        *,
        methods: Collection[str] | None = None,
        name: str | None = None,
        template: str | None = None,
    ) -> None:
        if not path.startswith("/"):
            raise ValueError(f"route {path!r}: the path must start with '/'")
        self.path = path
        self.endpoint = endpoint
        self.name = name
        self.template = template or path
        self.methods: frozenset[str] | None = None
        if methods is not None:
            upper = {method.upper() for method in methods}
            if "GET" in upper:
                upper.add("HEAD")
            self.methods = frozenset(upper)
        self.regex, self.names = compile_template(path)
        #: The endpoint as a coroutine function (a plain one runs in the thread pool).
        self.call = as_coroutine_function(endpoint)

    def accepts(self, method: str) -> bool:
        return self.methods is None or method in self.methods

    def allow(self) -> str:
        """The ``Allow`` header of a 405 at this route."""
        return ", ".join(sorted(self.methods or ()))

    def url_path(self, params: Mapping[str, Any]) -> str | None:
        """This route's path with ``params`` filled in; ``None`` when they are not exactly its own."""
        if set(params) != set(self.names):
            return None
        path = self.path
        for found in reversed(list(_PARAMETER.finditer(path))):
            path = path[: found.start()] + str(params[found.group(1)]) + path[found.end() :]
        return path

    def __repr__(self) -> str:
        methods = "*" if self.methods is None else ",".join(sorted(self.methods))
        return f"Route({self.path!r}, methods={methods}, name={self.name!r})"


class Mount(BaseRoute):
    """Any ASGI application serving every path under ``path`` (HTTP and WebSocket).

    The application sees the request's full ``path`` and the prefix appended to ``root_path``, as
    the ASGI specification describes a mounted application.
    """

    __slots__ = ("app", "prefix", "template")

    def __init__(self, path: str, app: ASGIApp, *, name: str | None = None) -> None:
        if path and (not path.startswith("/") or path.endswith("/")):
            raise ValueError(f"mount {path!r}: the prefix starts with '/' and does not end with one")
        self.path = path
        self.prefix = path
        self.app = app
        self.name = name
        #: What observability reports as the route of a request the mounted application serves.
        self.template = path + "/{path...}"

    def matches(self, route_path: str) -> bool:
        """Whether ``route_path`` lies under the prefix: the prefix itself gets the slash redirect."""
        prefix = self.prefix
        return route_path.startswith(prefix) and route_path[len(prefix) : len(prefix) + 1] == "/"

    def __repr__(self) -> str:
        return f"Mount({self.path!r}, name={self.name!r})"
