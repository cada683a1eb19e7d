"""Route patterns in the ``"METHOD /path/{wildcard}"`` form, translated to Starlette routes.

The pattern language is the one fw's specification is written in, so its examples read the same:
``{name}`` is one segment, ``{name...}`` the rest of the path, ``{$}`` anchors a trailing slash,
and a pattern without a method matches every method (GET also answers HEAD).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}
_WILDCARD = re.compile(r"\{([^{}]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class Pattern:
    """A parsed route pattern: the method (``None`` for any), the fw path and the Starlette path."""

    text: str
    method: str | None
    path: str
    starlette_path: str
    wildcards: tuple[str, ...]


def parse_pattern(text: str) -> Pattern:
    """Parse ``"GET /users/{id}"``; raises ``ValueError`` with the reason for a malformed pattern."""
    method: str | None = None
    path = text.strip()
    if " " in path:
        method, _, path = path.partition(" ")
        path = path.strip()
        if method not in _METHODS:
            raise ValueError(f"route pattern {text!r}: unknown method {method!r}")
    if not path.startswith("/"):
        raise ValueError(f"route pattern {text!r}: the path must start with '/'")
    names: list[str] = []
    pieces: list[str] = []
    position = 0
    for match in _WILDCARD.finditer(path):
        pieces.append(path[position : match.start()])
        inner = match.group(1)
        position = match.end()
        if inner == "$":
            if position != len(path) or not path[: match.start()].endswith("/"):
                raise ValueError(f"route pattern {text!r}: {{$}} may only end a path after '/'")
            continue
        rest = inner.endswith("...")
        name = inner[:-3] if rest else inner
        if not _NAME.match(name):
            raise ValueError(f"route pattern {text!r}: bad wildcard name {inner!r}")
        if name in names:
            raise ValueError(f"route pattern {text!r}: wildcard {name!r} appears twice")
        if rest and position != len(path):
            raise ValueError(f"route pattern {text!r}: {{{inner}}} must end the pattern")
        names.append(name)
        pieces.append(f"{{{name}:path}}" if rest else f"{{{name}}}")
    pieces.append(path[position:])
    return Pattern(text, method, path, "".join(pieces), tuple(names))


class DeclaredRoute(Protocol):
    """What tools read of one ``@app.route`` registration (``fw.app.RouteEntry``): structural, so
    the OpenAPI document and ``fw routes`` need no import of the App."""

    @property
    def pattern(self) -> Pattern: ...
    @property
    def handler(self) -> Callable[..., Any]: ...
    @property
    def name(self) -> str | None: ...
