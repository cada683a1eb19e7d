"""The static key tables ``fw generate`` writes and the runtime reads.

A generated ``_fw_config.py`` holds one :class:`Loader` per registered type (and one
:class:`Command` per sub-command): plain data plus a constructor function, so loading never
inspects annotations. Both the generator and the runtime compute :func:`fingerprint` over the
same classes; a mismatch means the declaration (or the loader format) changed after generation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, TypeVar

from fw.codegen import naming
from fw.codegen.fingerprint import fingerprint as codegen_fingerprint

Kind = Literal["str", "bool", "int", "duration", "list"]
Value = str | bool | int | timedelta | list[str]
SecretShow = Literal["", "mask", "hide", "show", "dsn"]

SECRET_WORDS = (
    "password",
    "secret",
    "apikey",
    "api_key",
    "credential",
    "access_key",
    "accesskey",
    "token",
    "dsn",
    "private_key",
)


@dataclass(frozen=True, slots=True)
class Field:
    """One leaf key.

    ``key`` is the full dotted key (relative to the element for table-array element fields).
    ``secret`` is the effective display mode: ``""`` plain, ``mask``, ``hide``, ``show``, or
    ``dsn`` (auto-detected key ending in ``.dsn``: keep scheme, host, port and path).
    """

    key: str
    kind: Kind
    table: str
    default: Value | None = None
    env: str | None = None
    opts: tuple[str, ...] = ()
    secret: SecretShow = ""
    dependon: tuple[str, ...] = ()
    falsy: Value | None = None
    help: str = ""
    #: A choice key's declared values; ``""`` among them means it may be left empty (not set).
    #: :mod:`fw.configuration.choices` adds the values registered at run time.
    choices: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.key.rpartition(".")[2]

    def initial(self) -> Value:
        """What the field holds when no source sets it: default, then falsy, then zero."""
        if self.default is not None:
            return copy_value(self.default)
        if self.falsy is not None:
            return self.falsy
        return zero(self.kind)


@dataclass(frozen=True, slots=True)
class TableArray:
    """``[[key]]`` elements: file only, each element filled from ``fields`` defaults first."""

    key: str
    table: str
    fields: tuple[Field, ...]
    build: Callable[[Mapping[str, Any]], Any]
    secret: SecretShow = ""
    dependon: tuple[str, ...] = ()
    help: str = ""


# Loader and Command share a few fields (type_name, fingerprint, classes, build, fields) on purpose:
# the generated module builds both by keyword, and a common base would make a sub-command pass for
# a loadable table wherever code tells them apart by type.
@dataclass(frozen=True, slots=True)
class Loader:
    """Everything fw needs to load one registered type under its prefix."""

    type_name: str
    prefix: str
    fingerprint: str
    classes: Callable[[], Sequence[type]]
    build: Callable[[Mapping[str, Any]], Any]
    fields: tuple[Field, ...]
    arrays: tuple[TableArray, ...] = ()
    tables: tuple[tuple[str, str], ...] = ()

    def zero_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {f.key: zero(f.kind) for f in self.fields}
        values.update({a.key: [] for a in self.arrays})
        return values

    def initial_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {f.key: f.initial() for f in self.fields}
        values.update({a.key: [] for a in self.arrays})
        return values


@dataclass(frozen=True, slots=True)
class Positional:
    """A sub-command positional: ``required``, ``optional`` or ``*`` (the rest, a list)."""

    key: str
    kind: Kind
    mode: Literal["required", "optional", "*"]
    help: str = ""


@dataclass(frozen=True, slots=True)
class Command:
    """A sub-command: options and positionals from the command line only."""

    type_name: str
    name: str
    description: str
    fingerprint: str
    classes: Callable[[], Sequence[type]]
    build: Callable[[Mapping[str, Any]], Any]
    fields: tuple[Field, ...]
    positionals: tuple[Positional, ...] = field(default=())

    def initial_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {f.key: f.initial() for f in self.fields}
        for p in self.positionals:
            values[p.key] = [] if p.mode == "*" else zero(p.kind)
        return values


Owner = TypeVar("Owner")


def name_clashes(owned: Iterable[tuple[Field, Owner]]) -> Iterator[tuple[str, Owner, Owner]]:
    """Each key, environment variable or option that two fields share: ``("option --x", first
    owner, second owner)``. Keys, variables and options are one namespace over every registered
    type; the generator refuses a clash at build time and the runtime again when loaders of
    several directories meet."""
    seen: dict[str, Owner] = {}
    for spec, owner in owned:
        names = [f"key {spec.key}", *(f"option {option}" for option in spec.opts)]
        if spec.env is not None:
            names.append(f"environment variable {spec.env}")
        for name in names:
            if name in seen:
                yield name, seen[name], owner
            else:
                seen[name] = owner


def zero(kind: Kind) -> Value:
    if kind == "str":
        return ""
    if kind == "bool":
        return False
    if kind == "int":
        return 0
    if kind == "duration":
        return timedelta(0)
    return []


def copy_value(value: Value) -> Value:
    return list(value) if isinstance(value, list) else value


#: The shape of generated loaders; a loader written for another shape counts as stale.
LOADER_FORMAT = 3


def listing_order(loaders: Iterable[Loader]) -> list[Loader]:
    """``loaders`` as ``--help``, the templates and the startup summary list them: by top-level
    table, a top-level table before the tables under it, and those in registration order (the
    store engines' ``[middleware.<engine>]`` tables as fw's engines are listed, rdb first)."""
    return sorted(loaders, key=lambda loader: (loader.prefix.partition(".")[0], "." in loader.prefix))


def type_name(cls: type) -> str:
    """How a generated ``_fw_config.py`` names a registered type: ``package.module:Class``."""
    return naming.type_name(cls, ":")


def fingerprint(classes: Sequence[type]) -> str:
    """The digest of the declarations a loader was generated from (:mod:`fw.codegen.fingerprint`)."""
    return codegen_fingerprint(classes, f"config loader format {LOADER_FORMAT}")
