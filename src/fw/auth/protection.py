"""Which request paths require authentication: ``[auth.protection] include`` minus ``exclude``.

Pattern language (one per entry, root-relative, never ``//``):

- ``/api/users``        exactly that path;
- ``/api/``             a trailing slash covers the whole subtree (``/api/`` and below);
- ``/api/{id}``, ``*``  one path segment (any name inside braces);
- ``/api/{rest...}``, ``**``  any number of segments, including none.

Paths are matched after percent-decoding, exactly as the router sees them, so a route cannot
be reached by a spelling protection did not consider.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_TOKEN = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\.\.\.\}|\{[A-Za-z_][A-Za-z0-9_]*\}|\*\*|\*")


class PatternError(ValueError):
    """A protection pattern that cannot be used; the message says why."""


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable protection pattern, or ``None``."""
    if not pattern.startswith("/"):
        return "must be root-relative (start with /)"
    if "//" in pattern:
        return "must not contain //"
    leftover = _TOKEN.sub("", pattern)
    if "{" in leftover or "}" in leftover:
        return "has a malformed {wildcard}"
    return None


def compile_pattern(pattern: str) -> re.Pattern[str]:
    problem = pattern_problem(pattern)
    if problem:
        raise PatternError(f"{pattern!r} {problem}")
    parts: list[str] = []
    position = 0
    for match in _TOKEN.finditer(pattern):
        parts.append(re.escape(pattern[position : match.start()]))
        token = match.group(0)
        parts.append(".*" if token == "**" or token.endswith("...}") else "[^/]+")
        position = match.end()
    parts.append(re.escape(pattern[position:]))
    body = "".join(parts)
    if pattern.endswith("/"):
        body += ".*"  # a trailing slash names a subtree, as it does in route patterns
    return re.compile(body)


@dataclass(frozen=True, slots=True)
class Protection:
    """Compiled include/exclude lists; ``requires_auth(path)`` is the only question asked."""

    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]

    @classmethod
    def from_patterns(cls, include: Iterable[str], exclude: Iterable[str]) -> Protection:
        return cls(tuple(compile_pattern(p) for p in include), tuple(compile_pattern(p) for p in exclude))

    def requires_auth(self, path: str) -> bool:
        if not any(p.fullmatch(path) for p in self.include):
            return False
        return not any(p.fullmatch(path) for p in self.exclude)
