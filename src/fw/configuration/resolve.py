"""Layering: default < TOML file < environment < command line, one key at a time.

A key present in a layer overrides everything below it; an absent key leaves the lower value.
Every value remembers the source that won, for the summary and for :func:`source_of`. A refused
file value is named in the error with what was received (a secret's as the mask), as the
environment and option layers already name theirs: the person fixing it sees what fw read.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fw.configuration.choices import checked
from fw.configuration.duration import DurationError, parse_duration
from fw.configuration.masking import MASK
from fw.configuration.quoting import LIMIT, quoted
from fw.configuration.schema import Field, Loader, Value
from fw.configuration.tomlfile import Entry, FileLayer
from fw.configuration.values import INT_MAX, INT_MIN, BadValue, parse_text
from fw.errors import ConfigError


@dataclass
class Resolved:
    """Values by key (table arrays: a list of element dicts) and the winning source of each."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


def resolve(
    loaders: Sequence[Loader],
    file: FileLayer | None,
    env_values: Mapping[str, str],
    env_sources: Mapping[str, str],
    cli: Mapping[str, tuple[Value, str]],
) -> Resolved:
    out = Resolved()
    if file is not None:
        _check_shapes(loaders, file)
    for loader in loaders:
        for spec in loader.fields:
            value: Any = spec.initial()
            source = "default"
            if file is not None and spec.key in file.values:
                entry = file.values[spec.key]
                source = file.source(entry.line)
                value = from_file(spec, entry, source)
            elif file is not None and spec.key in file.arrays:
                line = file.array_lines.get(spec.key, 0)
                raise ConfigError(spec.key, file.source(line), "expected a value, found [[table]] elements")
            if spec.env is not None and spec.env in env_values:
                source = env_sources.get(spec.env, f"env:{spec.env}")
                value = from_text(spec, env_values[spec.env], source)
            if spec.key in cli:
                value, source = cli[spec.key]
            out.values[spec.key] = value
            out.sources[spec.key] = source
        for array in loader.arrays:
            elements: list[dict[str, Any]] = []
            if file is not None:
                for key, entry in file.values.items():
                    if key == array.key or key.startswith(f"{array.key}."):
                        where = file.source(entry.line)
                        found = received(entry.value, array.secret or _secret_under(loaders, key))
                        raise ConfigError(array.key, where, f"expected [[{array.key}]] tables, found {found}")
            for index, raw in enumerate(file.arrays.get(array.key, []) if file is not None else []):
                element: dict[str, Any] = {}
                for spec in array.fields:
                    where = f"{array.key}[{index}].{spec.key}"
                    if spec.key in raw:
                        src = file.source(raw[spec.key].line)  # type: ignore[union-attr]
                        element[spec.key] = from_file(spec, raw[spec.key], src, where)
                        out.sources[where] = src
                    else:
                        element[spec.key] = spec.initial()
                        out.sources[where] = "default"
                elements.append(element)
            out.values[array.key] = elements
            out.sources[array.key] = (
                file.source(file.array_lines.get(array.key, 0))
                if file is not None and elements
                else "default"
            )
    return out


def _check_shapes(loaders: Sequence[Loader], file: FileLayer) -> None:
    """A value where a declared table is, or a table under a declared value, is refused.

    Unknown keys are ignored, but these are known names written in the wrong shape: ignoring
    them would silently drop what the file says.
    """
    tables = {table for loader in loaders for table, _ in loader.tables}
    leaves = {spec.key for loader in loaders for spec in loader.fields}

    def check(key: str, line: int, found: str) -> None:
        if key in tables:
            raise ConfigError(key, file.source(line), f"expected the [{key}] table, found {found}")
        parts = key.split(".")
        for end in range(1, len(parts)):
            parent = ".".join(parts[:end])
            if parent in leaves:
                raise ConfigError(key, file.source(line), f"{parent} is a value, not a table (found {found})")

    entries = [
        (entry.line, key, received(entry.value, _secret_under(loaders, key)))
        for key, entry in file.values.items()
    ]
    entries += [(file.array_lines.get(key, 0), key, f"[[{key}]] elements") for key in file.arrays]
    for line, key, found in sorted(entries):
        check(key, line, found)


def from_text(spec: Field, text: str, source: str) -> Value:
    """An environment text; empty text takes the falsy value when one is declared."""
    if text == "" and spec.falsy is not None:
        return spec.falsy
    try:
        return checked(spec, parse_text(spec.kind, text), source)
    except BadValue as error:
        raise ConfigError(spec.key, source, str(error)) from None


def from_file(spec: Field, entry: Entry, source: str, key: str | None = None) -> Value:
    """A TOML value: typed by the file, so only matching types bind (floats never do)."""
    value = entry.value
    name = key or spec.key

    def refuse(reason: str) -> ConfigError:
        return ConfigError(name, source, reason)

    got = received(value, spec.secret)
    if isinstance(value, float):
        raise refuse(f"{got} cannot bind to this {_kind_word(spec)} key (floats never bind)")
    if isinstance(value, (_dt.date, _dt.time)):
        raise refuse(f"{got} (a TOML date or time) cannot bind to this {_kind_word(spec)} key")
    if spec.kind == "str":
        if not isinstance(value, str):
            raise refuse(f"expected a string, got {got}")
        if value == "" and spec.falsy is not None:
            return spec.falsy
        return checked(spec, value, source, name)
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise refuse(f"expected true or false, got {got}")
        return value
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise refuse(f"expected an integer, got {got}")
        if not INT_MIN <= value <= INT_MAX:
            raise refuse(f"{got} is out of the 64-bit range")
        return value
    if spec.kind == "duration":
        if isinstance(value, int) and not isinstance(value, bool):
            shown = MASK if _is_secret(spec.secret) else f"{value}s"
            raise refuse(f'{got}: a bare number is not a duration; write a quoted duration such as "{shown}"')
        if not isinstance(value, str):
            raise refuse(f"expected a duration string, got {got}")
        if value == "" and spec.falsy is not None:
            return spec.falsy
        try:
            return parse_duration(value)
        except DurationError as error:
            raise refuse(str(error)) from None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise refuse(f"expected an array of strings, got {got}")
    return list(value)


def received(value: object, secret: str = "") -> str:
    """A TOML value as a refusal names it: its type and value (``the integer 80``, ``the string
    'yes'``); a secret's value is the mask, so an error never prints what may be a credential."""
    if isinstance(value, bool):
        kind, text = "the bool", "true" if value else "false"
    elif isinstance(value, int):
        kind, text = "the integer", str(value)
    elif isinstance(value, float):
        kind, text = "the float", repr(value)
    elif isinstance(value, str):
        kind, text = "the string", quoted(value)
    elif isinstance(value, list):
        kind, text = "the array", _cut(repr(value))
    elif isinstance(value, (_dt.date, _dt.time)):
        kind = "the date-time" if isinstance(value, _dt.datetime) else f"the {type(value).__name__}"
        text = value.isoformat()
    else:
        kind, text = "the value", quoted(str(value))
    return f"{kind} {MASK if _is_secret(secret) else text}"


def _cut(text: str) -> str:
    """``text``, or its start and full length when it is long (as :func:`quoted` cuts a string)."""
    return text if len(text) <= LIMIT else f"{text[:LIMIT]}... ({len(text)} characters)"


def _is_secret(secret: str) -> bool:
    return secret in ("mask", "hide", "dsn")


def _secret_under(loaders: Sequence[Loader], key: str) -> str:
    """``mask`` when the file key is a secret, lies under one, or covers one (a value written
    where a table of secrets is declared); ``""`` otherwise."""
    for loader in loaders:
        for spec in loader.fields:
            inside = spec.key.startswith(f"{key}.") or key.startswith(f"{spec.key}.")
            if (spec.key == key or inside) and _is_secret(spec.secret):
                return "mask"
        for array in loader.arrays:
            inside = key == array.key or key.startswith(f"{array.key}.") or array.key.startswith(f"{key}.")
            if inside and (_is_secret(array.secret) or any(_is_secret(spec.secret) for spec in array.fields)):
                return "mask"
    return ""


def _kind_word(spec: Field) -> str:
    return {"str": "string", "bool": "bool", "int": "int", "duration": "duration", "list": "list"}[spec.kind]
