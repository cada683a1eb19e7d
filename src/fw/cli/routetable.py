"""The route table ``fw routes`` prints: every route an App serves, who may reach it, what it binds.

A reviewer asking "is this endpoint protected, and what does it accept?" should not have to
evaluate ``[auth.protection]`` patterns against route patterns by hand. Each row names the
methods, the path, the protection that applies (the ``include`` pattern that covers the path,
the ``exclude`` pattern that frees it, or ``public``), the dataclass the handler binds with
``fw.parse`` (found the way ``fw generate`` finds it) and the handler. Routes fw adds itself
(sign-in endpoints, ``/openapi.json``, ``/docs``) are listed too, so the table is what the
server answers, not only what the application declared.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fw.auth.protection import compile_pattern
from fw.binding.codegen.scan import scan_directory
from fw.codegen.naming import module_name
from fw.core.routes import BaseRoute, Mount, Route
from fw.errors import GenerationError
from fw.routing import DeclaredRoute, Pattern

#: The Starlette path parameters (``{id}``, ``{rest:path}``) and fw's (``{rest...}``).
_PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::[a-z]+|\.\.\.)?\}")
_METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


@dataclass(frozen=True)
class ProtectionRules:
    """``[auth.protection]`` as configured, and whether authentication is on at all."""

    enabled: bool
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def describe(self, path: str) -> str:
        """How a request to route ``path`` is treated: the rule that decides, or ``public``."""
        if not self.enabled:
            return "public (auth off)"
        sample = _PARAMETER.sub("x", path).removesuffix("{$}")  # a route "/{$}" answers "/" alone
        covering = next((p for p in self.include if compile_pattern(p).fullmatch(sample)), None)
        if covering is None:
            return "public"
        freeing = next((p for p in self.exclude if compile_pattern(p).fullmatch(sample)), None)
        if freeing is not None:
            return f"public (exclude {freeing})"
        return f"auth (include {covering})"


@dataclass(frozen=True)
class Row:
    methods: str
    path: str
    protection: str
    binds: str
    handler: str


def handler_name(handler: Callable[..., Any]) -> tuple[str, str]:
    """(importable module, qualified name) of the function behind any decorators."""
    inner = inspect.unwrap(handler)
    module = getattr(inner, "__module__", None) or "?"
    qualname = getattr(inner, "__qualname__", None) or type(inner).__qualname__
    return module_name(module), qualname


def bound_types(handler_dirs: Iterable[Path]) -> tuple[dict[tuple[str, str], str], list[GenerationError]]:
    """Per handler (module, qualname) the name of the dataclass it passes to ``fw.parse``."""
    errors: list[GenerationError] = []
    found: dict[tuple[str, str], str] = {}
    for folder in handler_dirs:
        for site in scan_directory(folder, errors):
            if site.handler is not None:
                found.setdefault((module_name(site.module), site.handler), site.cls.__qualname__)
    return found, errors


def route_rows(
    routes: Sequence[BaseRoute],
    entries: Sequence[DeclaredRoute],
    rules: ProtectionRules,
    binds: dict[tuple[str, str], str],
    fw_paths: frozenset[str] = frozenset(),
) -> list[Row]:
    """One row per served route, in the order the router tries them.

    ``entries`` are the application's own routes (their fw patterns are shown); ``fw_paths`` are
    the sign-in endpoints the auth mode exempts from protection.
    """
    declared = {id(entry.handler): entry.pattern for entry in entries}
    rows: list[Row] = []
    for route in routes:
        if isinstance(route, Mount):
            rows.append(Row("*", f"{route.path}/…", rules.describe(route.path + "/"), "", "(mounted app)"))
            continue
        if not isinstance(route, Route):
            continue
        pattern = declared.get(id(route.endpoint))
        path = pattern.path if pattern is not None else route.path
        methods = _methods(route, pattern)
        key = handler_name(route.endpoint)
        protection = "exempt (sign-in endpoint)" if route.path in fw_paths else rules.describe(path)
        rows.append(Row(methods, path, protection, binds.get(key, ""), f"{key[0]}:{key[1]}"))
    return rows


def _methods(route: Route, pattern: Pattern | None) -> str:
    if pattern is not None and pattern.method is None:
        return "ANY"
    shown = [m for m in _METHOD_ORDER if m in (route.methods or ()) and m != "HEAD"]
    return ",".join(shown) or "ANY"


def render(rows: Sequence[Row]) -> str:
    """An aligned text table with a header line."""
    header = Row("METHODS", "PATH", "PROTECTION", "BINDS", "HANDLER")
    table = [header, *rows]
    widths = [
        max(len(getattr(row, name)) for row in table) for name in ("methods", "path", "protection", "binds")
    ]
    lines = []
    for row in table:
        cells = (row.methods, row.path, row.protection, row.binds)
        lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
            + "  "
            + row.handler
        )
    return "\n".join(line.rstrip() for line in lines)
