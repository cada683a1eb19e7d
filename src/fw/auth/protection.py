"""Which request paths require authentication: ``[auth.protection] include`` minus ``exclude``.

Pattern language (one per entry, root-relative, never ``//``):

- ``/api/users``        exactly that path;
- ``/api/``             a trailing slash covers the whole subtree (``/api/`` and below);
- ``/api/{id}``, ``*``  one path segment (any name inside braces);
- ``/api/{rest...}``, ``**``  any number of segments, including none;
- ``/{$}``, ``/api/{$}``  exactly that path with its trailing slash, not the subtree below it
  (``{$}`` ends a pattern after ``/``, as in route patterns: ``"/{$}"`` is the home page alone).

Paths are matched after percent-decoding, exactly as the router sees them, so a route cannot
be reached by a spelling protection did not consider.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Ends a pattern that names exactly the path before it (``/{$}``: ``/`` alone).
_EXACT = "{$}"
_TOKEN = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\.\.\.\}|\{[A-Za-z_][A-Za-z0-9_]*\}|\*\*|\*")


class PatternError(ValueError):
    """A protection pattern that cannot be used; the message says why."""


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable protection pattern, or ``None``."""
    if not pattern.startswith("/"):
        return "must be root-relative (start with /)"
    if "//" in pattern:
        return "must not contain //"
    body = pattern.removesuffix(_EXACT)
    if _EXACT in body:
        return "has {$} before its end ({$} may only end a pattern, after /)"
    if body != pattern and not body.endswith("/"):
        return "has {$} after a name ({$} may only end a pattern, after /)"
    leftover = _TOKEN.sub("", body)
    if "{" in leftover or "}" in leftover:
        return "has a malformed {wildcard}"
    return None


def compile_pattern(pattern: str) -> re.Pattern[str]:
    problem = pattern_problem(pattern)
    if problem:
        raise PatternError(f"{pattern!r} {problem}")
    exact = pattern.endswith(_EXACT)
    pattern = pattern.removesuffix(_EXACT)
    parts: list[str] = []
    position = 0
    for match in _TOKEN.finditer(pattern):
        parts.append(re.escape(pattern[position : match.start()]))
        token = match.group(0)
        parts.append(".*" if token == "**" or token.endswith("...}") else "[^/]+")
        position = match.end()
    parts.append(re.escape(pattern[position:]))
    body = "".join(parts)
    if pattern.endswith("/") and not exact:
        body += ".*"  # a trailing slash names a subtree, as it does in route patterns
    return re.compile(body)


#: Distinct paths whose answer is remembered, and the longest path remembered. A flood of
#: distinct paths only empties the table (the flooder pays the regular expressions).
MAX_REMEMBERED_PATHS = 1024
MAX_REMEMBERED_PATH_LENGTH = 256


@dataclass(frozen=True, slots=True)
class Protection:
    """Compiled include/exclude lists; ``requires_auth(path)`` is the only question asked.

    Asked on every request (for an anonymous one, before anything else is decided), so each
    answer is remembered by path: a service sees the same few paths again and again, and a
    dictionary lookup replaces a regular expression per pattern.
    """

    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]
    _answers: dict[str, bool] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_patterns(cls, include: Iterable[str], exclude: Iterable[str]) -> Protection:
        return cls(tuple(compile_pattern(p) for p in include), tuple(compile_pattern(p) for p in exclude))

    def requires_auth(self, path: str) -> bool:
        answer = self._answers.get(path)
        if answer is None:
            answer = self._decide(path)
            if len(path) <= MAX_REMEMBERED_PATH_LENGTH:
                if len(self._answers) >= MAX_REMEMBERED_PATHS:
                    self._answers.clear()
                self._answers[path] = answer
        return answer

    def _decide(self, path: str) -> bool:
        if not any(p.fullmatch(path) for p in self.include):
            return False
        return not any(p.fullmatch(path) for p in self.exclude)
