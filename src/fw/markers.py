"""The markers users put inside ``typing.Annotated``.

They are inert values: ``fw generate`` reads them once at build time and writes plain code, so a
request or a config load never looks at them. One marker type per spec tag keeps the generator's
job a matter of ``isinstance`` checks.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Literal

SourceKind = Literal["input", "query", "payload", "path", "header", "cookie", "method"]
SecretMode = Literal["mask", "hide", "show", "dsn"]
ArgKind = Literal["required", "optional", "*"]

# One small frozen class per spec tag, and one factory per marker below: the repetition is
# deliberate. The generator tells markers apart by ``isinstance`` alone, and each factory keeps its
# own typed signature and name for editors and type checkers, which a generic table would lose.


@dataclass(frozen=True, slots=True)
class Source:
    """Where a bound field comes from (spec: the one source tag of a field)."""

    kind: SourceKind
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Check:
    """Validation rules, comma separated (``required,minlen=3``)."""

    rules: str


@dataclass(frozen=True, slots=True)
class Enum:
    """Allowed values, comma separated, surrounding spaces trimmed."""

    values: str


@dataclass(frozen=True, slots=True)
class Default:
    """A default written as text; the generator parses it into a typed literal."""

    value: str


@dataclass(frozen=True, slots=True)
class Key:
    """A stable config key name replacing the derived one."""

    name: str


@dataclass(frozen=True, slots=True)
class Opt:
    """A command-line long option, optionally with a one-letter short form (``"port,p"``)."""

    spec: str


@dataclass(frozen=True, slots=True)
class Env:
    """An exact environment variable name, or ``"-"`` to block environment input."""

    name: str


@dataclass(frozen=True, slots=True)
class Help:
    """Help text; wins over the field's doc comment."""

    text: str


@dataclass(frozen=True, slots=True)
class Secret:
    """How the startup summary shows a value: ``mask``, ``hide``, ``show``, or ``dsn`` (a URL that
    may carry credentials: scheme, host, port and path shown, user information masked, no query)."""

    mode: SecretMode


@dataclass(frozen=True, slots=True)
class DependOn:
    """Hide this entry from the summary while the named key is off (``.sibling`` is relative)."""

    key: str


@dataclass(frozen=True, slots=True)
class Falsy:
    """An extra 'off' value; also the value used when nothing sets the field."""

    value: str


@dataclass(frozen=True, slots=True)
class Arg:
    """A sub-command positional argument: ``required``, ``optional`` or ``*`` (the rest)."""

    kind: ArgKind


# Request binding sources.
def input(name: str | None = None) -> Source:
    return Source("input", name)


def query(name: str | None = None) -> Source:
    return Source("query", name)


def payload(name: str | None = None) -> Source:
    return Source("payload", name)


def path(name: str | None = None) -> Source:
    return Source("path", name)


def header(name: str | None = None) -> Source:
    return Source("header", name)


def cookie(name: str | None = None) -> Source:
    return Source("cookie", name)


def method() -> Source:
    return Source("method", None)


# Validation (binding) and defaults (binding and config).
def check(rules: str) -> Check:
    return Check(rules)


def enum(values: str) -> Enum:
    return Enum(values)


def default(value: str) -> Default:
    if not isinstance(value, builtins.str):
        raise TypeError(f"fw.default takes the value as text, got {type(value).__name__}")
    return Default(value)


# Configuration.
def key(name: str) -> Key:
    return Key(name)


def opt(spec: str) -> Opt:
    return Opt(spec)


def env(name: str) -> Env:
    return Env(name)


def help(text: str) -> Help:
    return Help(text)


def secret(mode: SecretMode) -> Secret:
    return Secret(mode)


def dependon(key: str) -> DependOn:
    return DependOn(key)


def falsy(value: str) -> Falsy:
    return Falsy(value)


def arg(kind: ArgKind) -> Arg:
    return Arg(kind)
