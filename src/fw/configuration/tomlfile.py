"""The TOML file layer: ``tomllib`` for the syntax, a light line scan for fw's subset and positions.

``tomllib`` loses positions, so a small scanner walks the lines once to refuse what fw does not
accept (quoted keys, inline tables, nested arrays) with the line that holds it, and to remember
the line of every key so each value's source reads ``file:PATH:LINE``. ``${NAME}`` references in
strings are expanded here, so expanded values stay in the file layer. Every undefined variable
of the file is named in one :class:`UndefinedVariables` error: a new checkout usually lacks
several at once, and finding them one failed start at a time is slow.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fw.errors import ConfigError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_TOMLLIB_LINE = re.compile(r"\(at line (\d+), column \d+\)")


@dataclass(frozen=True, slots=True)
class Entry:
    """One value read from the file, with its line (``expanded``: a ``${NAME}`` was replaced)."""

    value: Any
    line: int
    expanded: bool = False


@dataclass
class FileLayer:
    """Leaves by full dotted key; table arrays by key, each element keyed by element-relative key."""

    path: str
    values: dict[str, Entry] = field(default_factory=dict)
    arrays: dict[str, list[dict[str, Entry]]] = field(default_factory=dict)
    array_lines: dict[str, int] = field(default_factory=dict)

    def source(self, line: int) -> str:
        return f"file:{self.path}:{line}"


class ExpandError(ValueError):
    """A ``${...}`` reference that cannot be expanded."""


class UndefinedVariables(ConfigError):
    """The ``${NAME}`` references of a file whose variables are not set, all of them at once.

    ``names`` lists each variable once, in file order, and ``keys`` the keys that reference them.
    One reference reads as before (``auth.jwt.issuer: undefined variable AUTH_JWT_ISSUER in
    ${AUTH_JWT_ISSUER} (from file:PATH:LINE)``); several name the file once and every variable
    with its keys and lines.
    """

    def __init__(self, path: str, found: Sequence[tuple[str, str, int]]) -> None:
        self.names = tuple(dict.fromkeys(name for name, _, _ in found))
        #: The keys whose values reference them.
        self.keys = frozenset(key for _, key, _ in found)
        if len(found) == 1:
            name, key, line = found[0]
            super().__init__(key, f"file:{path}:{line}", f"undefined variable {name} in ${{{name}}}")
            return
        places: dict[str, list[str]] = {}
        for name, key, line in found:
            places.setdefault(name, []).append(f"{key}, line {line}")
        listed = ", ".join(f"{name} ({'; '.join(where)})" for name, where in places.items())
        super().__init__("", f"file:{path}", f"undefined variables {listed}")


def expand(text: str, environ: Mapping[str, str]) -> tuple[str, list[str]]:
    """Expand ``${NAME}`` and ``$$``; every other ``$`` stays as written.

    Returns the text and the undefined names it references (each expanded to nothing), so the
    caller can report every one of the file together; a malformed reference raises.
    """
    out: list[str] = []
    undefined: list[str] = []
    pos = 0
    while True:
        dollar = text.find("$", pos)
        if dollar < 0:
            out.append(text[pos:])
            return "".join(out), undefined
        out.append(text[pos:dollar])
        following = text[dollar + 1 : dollar + 2]
        if following == "$":
            out.append("$")
            pos = dollar + 2
        elif following == "{":
            end = text.find("}", dollar + 2)
            if end < 0:
                raise ExpandError("unterminated ${ reference (write $$ for a literal $)")
            name = text[dollar + 2 : end]
            if not _NAME.fullmatch(name):
                raise ExpandError(
                    f"invalid reference ${{{name}}}: only ${{NAME}} is supported, with no default form"
                )
            if name in environ:
                out.append(environ[name])
            else:
                undefined.append(name)
            pos = end + 1
        else:
            out.append("$")
            pos = dollar + 1


def parse_file(text: str, path: str, environ: Mapping[str, str]) -> FileLayer:
    """Check the subset, parse, expand references, and flatten into a :class:`FileLayer`."""
    positions = _scan(text, path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = _TOMLLIB_LINE.search(str(error))
        line = int(found.group(1)) if found else 0
        where = f"file:{path}:{line}" if line else f"file:{path}"
        reason = _TOMLLIB_LINE.sub("", str(error)).strip()
        raise ConfigError(positions.lines.get(line, ""), where, f"invalid TOML: {reason}") from None
    layer = FileLayer(path)
    undefined: list[tuple[str, str, int]] = []
    _flatten(data, (), layer, positions, _Expansion(environ, undefined))
    if undefined:
        raise UndefinedVariables(path, undefined)
    return layer


@dataclass(frozen=True, slots=True)
class _Expansion:
    """The variables references expand from, and the undefined ones met so far (name, key, line)."""

    environ: Mapping[str, str]
    undefined: list[tuple[str, str, int]]

    def text(self, text: str, key: str, line: int) -> str:
        expanded, missing = expand(text, self.environ)
        self.undefined.extend((name, key, line) for name in dict.fromkeys(missing))
        return expanded


@dataclass
class _Positions:
    keys: dict[tuple[str, ...], int] = field(default_factory=dict)
    elements: dict[tuple[tuple[str, ...], int, tuple[str, ...]], int] = field(default_factory=dict)
    headers: dict[tuple[str, ...], int] = field(default_factory=dict)
    lines: dict[int, str] = field(default_factory=dict)  # line -> the key or table written there


def _flatten(
    data: Mapping[str, Any],
    prefix: tuple[str, ...],
    layer: FileLayer,
    positions: _Positions,
    expansion: _Expansion,
) -> None:
    for name, value in data.items():
        path = (*prefix, name)
        if isinstance(value, dict):
            _flatten(value, path, layer, positions, expansion)
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            key = ".".join(path)
            layer.array_lines[key] = positions.headers.get(path, 0)
            elements: list[dict[str, Entry]] = []
            for index, element in enumerate(value):
                flat: dict[str, Entry] = {}
                for rel, item in _leaves(element, ()):
                    line = positions.elements.get((path, index, rel), 0)
                    flat[".".join(rel)] = _entry(item, line, ".".join((*path, *rel)), layer, expansion)
                elements.append(flat)
            layer.arrays[key] = elements
        else:
            line = positions.keys.get(path, 0)
            key = ".".join(path)
            layer.values[key] = _entry(value, line, key, layer, expansion)


def _leaves(data: Mapping[str, Any], prefix: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    found: list[tuple[tuple[str, ...], Any]] = []
    for name, value in data.items():
        if isinstance(value, dict):
            found.extend(_leaves(value, (*prefix, name)))
        else:
            found.append(((*prefix, name), value))
    return found


def _entry(value: Any, line: int, key: str, layer: FileLayer, expansion: _Expansion) -> Entry:
    try:
        if isinstance(value, str):
            return Entry(expansion.text(value, key, line), line, "${" in value)
        if isinstance(value, list):
            items = [expansion.text(item, key, line) if isinstance(item, str) else item for item in value]
            return Entry(items, line, any(isinstance(item, str) and "${" in item for item in value))
    except ExpandError as error:
        raise ConfigError(key, layer.source(line), str(error)) from None
    return Entry(value, line)


# The line scan.
def _scan(text: str, path: str) -> _Positions:
    positions = _Positions()
    table: tuple[str, ...] = ()
    element: tuple[tuple[str, ...], int] | None = None
    counts: dict[tuple[str, ...], int] = {}
    lines = _lines(text)
    index = 0
    while index < len(lines):
        lineno = index + 1
        stripped = lines[index].strip()
        index += 1
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            double = stripped.startswith("[[")
            close = stripped.find("]]" if double else "]")
            if close < 0:
                raise ConfigError("", f"file:{path}:{lineno}", "invalid TOML: unterminated table header")
            name = _dotted(stripped[2 if double else 1 : close], path, lineno)
            positions.lines[lineno] = ".".join(name)
            if double:
                counts[name] = counts.get(name, -1) + 1
                element = (name, counts[name])
                positions.headers.setdefault(name, lineno)
                table = name
            else:
                inside = element is not None and name[: len(element[0])] == element[0]
                element = element if inside else None
                table = name
            continue
        equals = stripped.find("=")
        if equals < 0:
            raise ConfigError("", f"file:{path}:{lineno}", "invalid TOML: expected key = value")
        key = _dotted(stripped[:equals], path, lineno, table)
        full = (*table, *key)
        positions.lines[lineno] = ".".join(full)
        if element is not None:
            relative = full[len(element[0]) :]
            positions.elements[(element[0], element[1], relative)] = lineno
        else:
            positions.keys[full] = lineno
        index = _scan_value(stripped[equals + 1 :], lines, index, path, lineno, ".".join(full))
    return positions


def _lines(text: str) -> list[str]:
    """TOML lines end at LF (CRLF included) only; ``str.splitlines`` would also split on U+2028,
    U+0085 and the like, which TOML allows inside strings and comments, and shift every line."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _dotted(text: str, path: str, lineno: int, table: tuple[str, ...] = ()) -> tuple[str, ...]:
    parts = tuple(part.strip() for part in text.split("."))
    for part in parts:
        if part[:1] in ('"', "'"):
            raise ConfigError(
                ".".join((*table, *parts)),
                f"file:{path}:{lineno}",
                "quoted keys are not supported; use bare keys (A-Z a-z 0-9 _ -)",
            )
        if not _BARE.fullmatch(part):
            raise ConfigError(
                ".".join((*table, *parts)),
                f"file:{path}:{lineno}",
                "invalid key: use bare keys (A-Z a-z 0-9 _ -)",
            )
    return parts


def _scan_value(first: str, lines: list[str], index: int, path: str, lineno: int, key: str) -> int:
    """Walk one value (possibly spanning lines); refuse inline tables and nested arrays."""
    depth = 0
    quote: str | None = None
    text = first
    current = lineno
    while True:
        pos = 0
        while pos < len(text):
            char = text[pos]
            if quote is not None:
                if quote in ('"""', "'''"):
                    if text.startswith(quote, pos):
                        quote = None
                        pos += 3
                        continue
                elif char == quote:
                    quote = None
                if char == "\\" and quote is not None and quote[0] == '"':
                    pos += 2
                    continue
                pos += 1
                continue
            if text.startswith('"""', pos) or text.startswith("'''", pos):
                quote = text[pos : pos + 3]
                pos += 3
                continue
            if char in ('"', "'"):
                quote = char
            elif char == "#":
                break
            elif char == "{":
                raise ConfigError(
                    key, f"file:{path}:{current}", "inline tables are not supported; use a [table]"
                )
            elif char == "[":
                depth += 1
                if depth > 1:
                    raise ConfigError(key, f"file:{path}:{current}", "nested arrays are not supported")
            elif char == "]":
                depth -= 1
            pos += 1
        if quote in ('"', "'"):
            quote = None  # a single-line string never spans lines; tomllib reports the error
        if depth <= 0 and quote is None:
            return index
        if index >= len(lines):
            return index
        text = lines[index]
        current = index + 1
        index += 1
