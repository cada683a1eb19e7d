"""Generation-time planning: from an imported dataclass to its static key table.

This is the only place that reads annotations and markers; it runs under ``fw generate`` and
its result is written out as plain data, so nothing here runs when an application loads its
configuration. Every refusal is a :class:`fw.GenerationError` pointing at the field's line.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import types
import typing
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from fw import markers as m
from fw.configuration.duration import DurationError, parse_duration
from fw.configuration.schema import SECRET_WORDS, Kind, SecretShow, Value
from fw.configuration.values import BadValue, parse_text
from fw.errors import GenerationError

_OPT_LONG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_OPT_SHORT = re.compile(r"[A-Za-z0-9]")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_NAME = re.compile(r"[A-Za-z0-9_-]+")
_DIRECTIVE = re.compile(r"^(?:[A-Za-z_-]+:\S|(?:noqa|type:|pragma:|fmt:|pylint:|mypy:))")
_SCALAR_TYPES: dict[Any, Kind] = {bool: "bool", int: "int", str: "str", timedelta: "duration"}


@dataclass
class Site:
    file: str
    line: int

    def error(self, message: str) -> GenerationError:
        return GenerationError(self.file, self.line, message)


@dataclass
class PlannedField:
    key: str
    kind: Kind
    table: str
    attr: str
    site: Site
    default: Value | None = None
    env: str | None = None
    opts: tuple[str, ...] = ()
    secret: SecretShow = ""
    dependon: tuple[tuple[str, Site], ...] = ()
    falsy: Value | None = None
    help: str = ""
    arg: str | None = None


@dataclass
class PlannedArray:
    key: str
    table: str
    attr: str
    site: Site
    cls: type
    fields: list[PlannedField]
    nodes: list[Node]
    secret: SecretShow = ""
    dependon: tuple[tuple[str, Site], ...] = ()
    help: str = ""


@dataclass
class Node:
    """How to construct one dataclass: each init field is a leaf key, a nested node or an array."""

    cls: type
    members: list[tuple[str, PlannedField | Node | PlannedArray]] = field(default_factory=list)


@dataclass
class Plan:
    kind: str  # "config" or "command"
    cls: type
    name: str  # prefix, or sub-command name
    description: str
    site: Site
    root: Node
    fields: list[PlannedField]
    arrays: list[PlannedArray]
    tables: list[tuple[str, str]]
    classes: list[type]


@dataclass
class _Ctx:
    secret: SecretShow | None = None
    dependon: tuple[tuple[str, Site], ...] = ()
    element: bool = False
    command: bool = False


def to_snake(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", name).lower()


def help_text(raw: str) -> str:
    """First paragraph, directives dropped, joined on one line, one trailing period dropped."""
    paragraph: list[str] = []
    for line in inspect.cleandoc(raw).splitlines():
        stripped = line.strip()
        if _DIRECTIVE.match(stripped):
            continue
        if not stripped:
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    text = " ".join(paragraph)
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


@dataclass
class _ClassSource:
    file: str
    line: int
    doc: str
    lines: dict[str, int]
    docs: dict[str, str]


@lru_cache(maxsize=256)
def _parse(file: str) -> tuple[ast.Module, tuple[str, ...]]:
    text = Path(file).read_text(encoding="utf-8")
    # Python ends lines at LF, CRLF or CR only (``splitlines`` would also split on U+2028 ...).
    return ast.parse(text, file), tuple(re.split(r"\r\n|\r|\n", text))


def class_source(cls: type) -> _ClassSource:
    try:
        file = inspect.getsourcefile(cls) or "<unknown>"
        tree, lines = _parse(file)
    except (OSError, TypeError, SyntaxError):
        return _ClassSource("<unknown>", 0, "", {}, {})
    node: ast.AST = tree
    for part in cls.__qualname__.split("."):
        found = next(
            (
                child
                for child in ast.iter_child_nodes(node)
                if isinstance(child, ast.ClassDef) and child.name == part
            ),
            None,
        )
        if found is None:
            return _ClassSource(file, 0, "", {}, {})
        node = found
    assert isinstance(node, ast.ClassDef)
    out = _ClassSource(file, node.lineno, ast.get_docstring(node) or "", {}, {})
    body = node.body
    for index, stmt in enumerate(body):
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        name = stmt.target.id
        out.lines[name] = stmt.lineno
        comment: list[str] = []
        row = stmt.lineno - 2
        while row >= 0 and lines[row].strip().startswith("#:"):
            comment.insert(0, lines[row].strip()[2:].strip())
            row -= 1
        if comment:
            out.docs[name] = "\n".join(comment)
        elif index + 1 < len(body):
            after = body[index + 1]
            if (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                out.docs[name] = after.value.value
    return out


def _split(hint: Any) -> tuple[Any, list[Any]]:
    if typing.get_origin(hint) is typing.Annotated:
        base, *extras = typing.get_args(hint)
        return base, list(extras)
    return hint, []


def _type_text(hint: Any) -> str:
    if isinstance(hint, type) and not typing.get_args(hint):
        return hint.__name__
    return repr(hint).replace("typing.", "").replace("datetime.", "")


def _classify(hint: Any, site: Site) -> tuple[str, Any]:
    """``("scalar", kind)``, ``("struct", cls)`` or ``("array", cls)``; anything else is refused.

    A ``typing.NewType`` binds as the type it names: a new name never changes how a value parses.
    """
    while hasattr(hint, "__supertype__"):
        hint = hint.__supertype__
    if hint in _SCALAR_TYPES:
        return "scalar", _SCALAR_TYPES[hint]
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    bindable = "bindable: str, bool, int, timedelta, list[str], a dataclass, list[dataclass]"
    if origin is list and len(args) == 1:
        if args[0] is str:
            return "scalar", "list"
        if isinstance(args[0], type) and dataclasses.is_dataclass(args[0]):
            return "array", args[0]
        raise site.error(f"unsupported field type {_type_text(hint)} ({bindable})")
    if origin in (typing.Union, types.UnionType):
        raise site.error(
            f"unsupported field type {_type_text(hint)}: optional (pointer-like) values are not bindable; "
            "use a default or falsy instead"
        )
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return "struct", hint
    if hint is float:
        raise site.error(f"unsupported basic type float ({bindable})")
    raise site.error(f"unsupported field type {_type_text(hint)} ({bindable})")


def _parse_literal(kind: Kind, text: str, site: Site, what: str) -> Value:
    try:
        if kind == "duration":
            return parse_duration(text)
        return parse_text(kind, text)
    except (BadValue, DurationError) as error:
        raise site.error(f"unparsable {what} {text!r} for a {kind} field: {error}") from None


def _secret_for(key: str, explicit: SecretShow | None) -> SecretShow:
    if explicit is not None:
        return explicit
    lowered = key.lower()
    if any(word in lowered for word in SECRET_WORDS):
        return "dsn" if lowered.endswith(".dsn") else "mask"
    return ""


class Planner:
    """Plans one registration; collects the classes it touches for the fingerprint."""

    def __init__(self, kind: str, cls: type, name: str, description: str, site: Site) -> None:
        self.kind = kind
        self.cls = cls
        self.name = name
        self.description = description
        self.site = site
        self.fields: list[PlannedField] = []
        self.arrays: list[PlannedArray] = []
        self.tables: list[tuple[str, str]] = []
        self.classes: list[type] = []

    def plan(self) -> Plan:
        if not dataclasses.is_dataclass(self.cls):
            raise self.site.error(f"{self.cls.__qualname__} is not a dataclass")
        source = class_source(self.cls)
        prefix = "" if self.kind == "command" else self.name
        if prefix:
            self.tables.append((prefix, help_text(source.doc)))
        root = self._walk(self.cls, prefix, prefix, _Ctx(command=self.kind == "command"), (), self.fields)
        if self.kind == "command":
            self._check_positionals()
        return Plan(
            self.kind,
            self.cls,
            self.name,
            self.description,
            self.site,
            root,
            self.fields,
            self.arrays,
            self.tables,
            self.classes,
        )

    def _walk(
        self,
        cls: type,
        key_prefix: str,
        table: str,
        ctx: _Ctx,
        stack: tuple[type, ...],
        out: list[PlannedField],
    ) -> Node:
        source = class_source(cls)
        if cls in stack:
            raise Site(source.file, source.line).error(
                f"{cls.__qualname__} reaches itself (self-reaching structs)"
            )
        if cls not in self.classes:
            self.classes.append(cls)
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception as error:
            raise Site(source.file, source.line).error(
                f"cannot resolve the annotations of {cls.__qualname__}: {error}"
            ) from None
        node = Node(cls)
        for item in dataclasses.fields(cls):
            if not item.init:
                continue
            site = Site(source.file, source.lines.get(item.name, source.line))
            base, extras = _split(hints[item.name])
            marks = self._markers(extras, site, item.name)
            shape, target = _classify(base, site)
            name = marks["key"] if "key" in marks else to_snake(item.name)
            key = f"{key_prefix}.{name}" if key_prefix else name
            doc = marks.get("help", help_text(source.docs.get(item.name, "")))
            dependon = ctx.dependon + self._dependon(marks, key_prefix, site)
            explicit = marks.get("secret", ctx.secret)
            if shape == "struct":
                self._refuse(marks, ("default", "opt", "env", "arg"), site, "a nested struct field")
                if "falsy" in marks:
                    raise site.error("falsy is not allowed on a nested struct field")
                if ctx.element:
                    raise site.error("nested tables inside table-array elements are not supported")
                sub_doc = doc or help_text(class_source(target).doc)
                if not ctx.command:
                    self.tables.append((key, sub_doc))
                child = self._walk(
                    target,
                    key,
                    key,
                    dataclasses.replace(ctx, secret=explicit, dependon=dependon),
                    (*stack, cls),
                    out,
                )
                node.members.append((item.name, child))
                continue
            if shape == "array":
                if ctx.command:
                    raise site.error("sub-commands cannot take struct slices (list of dataclasses)")
                if ctx.element:
                    raise site.error("nested table arrays are not supported")
                self._refuse(marks, ("default", "opt", "env", "falsy", "arg"), site, "a table-array field")
                if target.__module__.rpartition(".")[0] != cls.__module__.rpartition(".")[0]:
                    raise site.error(
                        f"table-array element {target.__qualname__} must be a dataclass of the same package"
                    )
                if target in (*stack, cls):
                    raise site.error(f"{target.__qualname__} reaches itself (self-reaching structs)")
                element_fields: list[PlannedField] = []
                element_node = self._walk(
                    target, "", key, _Ctx(secret=explicit, element=True), (*stack, cls), element_fields
                )
                for planned in element_fields:
                    planned.secret = _secret_for(f"{key}.{planned.key}", explicit)
                array = PlannedArray(
                    key,
                    table,
                    item.name,
                    site,
                    target,
                    element_fields,
                    [element_node],
                    _secret_for(key, explicit) if explicit else "",
                    dependon,
                    doc or help_text(class_source(target).doc),
                )
                self.arrays.append(array)
                node.members.append((item.name, array))
                continue
            kind: Kind = target
            planned = self._leaf(item, kind, key, table, site, marks, ctx, dependon, explicit, doc)
            out.append(planned)
            node.members.append((item.name, planned))
        return node

    def _markers(self, extras: list[Any], site: Site, name: str) -> dict[str, Any]:
        marks: dict[str, Any] = {}
        mapping: list[tuple[type, str, str]] = [
            (m.Default, "default", "value"),
            (m.Key, "key", "name"),
            (m.Opt, "opt", "spec"),
            (m.Env, "env", "name"),
            (m.Help, "help", "text"),
            (m.Secret, "secret", "mode"),
            (m.DependOn, "dependon", "key"),
            (m.Falsy, "falsy", "value"),
            (m.Arg, "arg", "kind"),
        ]
        for extra in extras:
            for marker_type, label, attribute in mapping:
                if isinstance(extra, marker_type):
                    if label in marks:
                        raise site.error(f"{name}: {label} given twice")
                    marks[label] = getattr(extra, attribute)
                    break
            else:
                if isinstance(extra, (m.Source, m.Check, m.Enum)):
                    raise site.error(
                        f"{name}: {type(extra).__name__.lower()} is a request-binding marker, "
                        "not a configuration marker"
                    )
        if "secret" in marks and marks["secret"] not in ("mask", "hide", "show"):
            raise site.error(f"{name}: secret must be mask, hide or show, not {marks['secret']!r}")
        if "key" in marks and not _KEY_NAME.fullmatch(str(marks["key"])):
            raise site.error(f"{name}: key {marks['key']!r} must be one name (letters, digits, _ and -)")
        if "help" in marks:
            marks["help"] = str(marks["help"])
        return marks

    @staticmethod
    def _refuse(marks: dict[str, Any], labels: tuple[str, ...], site: Site, where: str) -> None:
        for label in labels:
            if label in marks:
                raise site.error(f"{label} is not allowed on {where}")

    @staticmethod
    def _dependon(marks: dict[str, Any], key_prefix: str, site: Site) -> tuple[tuple[str, Site], ...]:
        if "dependon" not in marks:
            return ()
        target = str(marks["dependon"])
        if not target or target == ".":
            raise site.error("dependon needs a key or .sibling")
        if target.startswith("."):
            target = f"{key_prefix}{target}" if key_prefix else target[1:]
        return ((target, site),)

    def _leaf(
        self,
        item: dataclasses.Field[Any],
        kind: Kind,
        key: str,
        table: str,
        site: Site,
        marks: dict[str, Any],
        ctx: _Ctx,
        dependon: tuple[tuple[str, Site], ...],
        explicit: SecretShow | None,
        doc: str,
    ) -> PlannedField:
        if ctx.element:
            for label in ("opt", "env", "falsy", "dependon", "secret"):
                if label in marks:
                    raise site.error(
                        f"{label} is not allowed on table-array element fields "
                        "(elements come only from the file)"
                    )
        if ctx.command:
            for label in ("env", "falsy", "dependon", "secret"):
                if label in marks:
                    raise site.error(
                        f"{label} is not allowed on sub-command fields (they come from the command line)"
                    )
        elif "arg" in marks:
            raise site.error("arg is only for sub-command fields")
        default: Value | None = None
        if "default" in marks:
            default = _parse_literal(kind, str(marks["default"]), site, "default")
        elif item.default is not dataclasses.MISSING:
            literal = item.default
            if isinstance(literal, (str, bool, int, timedelta)) and not (
                kind == "int" and isinstance(literal, bool)
            ):
                if kind == "duration" and not isinstance(literal, timedelta):
                    raise site.error(
                        "unparsable default: a duration default must be a timedelta or fw.default('30s')"
                    )
                default = literal
        falsy: Value | None = None
        if "falsy" in marks:
            if kind in ("bool", "list"):
                raise site.error(f"falsy is not allowed on a {kind} field")
            falsy = _parse_literal(kind, str(marks["falsy"]), site, "falsy value")
        opts: tuple[str, ...] = ()
        env: str | None = None
        if "opt" in marks:
            long, _, short = str(marks["opt"]).partition(",")
            long, short = long.strip(), short.strip()
            if not _OPT_LONG.fullmatch(long):
                raise site.error(f"opt {marks['opt']!r}: the long option must be letters, digits, _, - or .")
            if short and not _OPT_SHORT.fullmatch(short):
                raise site.error(f"opt {marks['opt']!r}: the short option must be one letter or digit")
            opts = (f"--{long}", f"-{short}") if short else (f"--{long}",)
            derived_env = long.replace("-", "_").replace(".", "_").upper()
        else:
            opts = (f"--{key.replace('.', '-')}",)
            derived_env = key.replace(".", "_").replace("-", "_").upper()
        if not ctx.command and not ctx.element:
            env = derived_env
            if "env" in marks:
                named = str(marks["env"])
                if named == "-":
                    env = None
                elif not _ENV_NAME.fullmatch(named):
                    raise site.error(
                        f"env {named!r}: a name starts with a letter or underscore (A-Z a-z 0-9 _)"
                    )
                else:
                    env = named
        if ctx.element:
            opts = ()
        arg = marks.get("arg")
        if arg is not None:
            if arg not in ("required", "optional", "*"):
                raise site.error(f"arg must be required, optional or *, not {arg!r}")
            opts = ()
        return PlannedField(
            key=key,
            kind=kind,
            table=table,
            attr=item.name,
            site=site,
            default=default,
            env=env,
            opts=opts,
            secret="" if ctx.command else _secret_for(key, explicit),
            dependon=dependon,
            falsy=falsy,
            help=doc,
            arg=arg,
        )

    def _check_positionals(self) -> None:
        order = {"required": 0, "optional": 1, "*": 2}
        last = -1
        for planned in self.fields:
            if planned.arg is None:
                continue
            rank = order[planned.arg]
            if planned.arg == "*" and planned.kind != "list":
                raise planned.site.error('arg("*") takes the remaining positionals: declare it list[str]')
            if planned.arg != "*" and planned.kind == "list":
                raise planned.site.error(f'arg("{planned.arg}") binds one value: use arg("*") for a list')
            if rank < last or (rank == 2 and last == 2):
                raise planned.site.error(
                    'positionals go required first, then optional, then one arg("*") last'
                )
            last = rank
