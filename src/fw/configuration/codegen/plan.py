"""Planning one registration: from an imported dataclass to its static key table.

This is the only place that reads configuration annotations and markers; it runs under
``fw generate`` and its result is written out as plain data, so nothing here runs when an
application loads its configuration. Every refusal names the file:line, the dataclass, the
field and its key (``conf.py:11: AppConfig.ratio (app.ratio): unsupported type float``).
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
from typing import Any, Literal

import fw.configuration.registry as registry
import fw.markers as m
from fw.codegen.errors import Where, field_subject
from fw.codegen.naming import module_for
from fw.codegen.source import class_source, is_directive
from fw.configuration.codegen.scan import Call, Kind, import_for_reading
from fw.configuration.duration import DurationError, parse_duration
from fw.configuration.schema import SECRET_WORDS, Field, SecretShow, Value
from fw.configuration.schema import Kind as ValueKind
from fw.configuration.values import BadValue, parse_text

_OPT_LONG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_OPT_SHORT = re.compile(r"[A-Za-z0-9]")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_NAME = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR_TYPES: dict[Any, ValueKind] = {bool: "bool", int: "int", str: "str", timedelta: "duration"}
_BINDABLE = (
    "bindable: str, bool, int, timedelta, list[str], Literal[...] of str, a dataclass, list[dataclass]"
)


@dataclass
class PlannedField:
    """A leaf key: the entry the generated table holds (``spec``) and where it was declared."""

    spec: Field
    attr: str
    where: Where
    #: Each ``dependon`` target with the declaration naming it (for errors about the target).
    dependon: tuple[tuple[str, Where], ...] = ()
    #: A sub-command positional: ``required``, ``optional`` or ``*``.
    arg: str | None = None


@dataclass
class PlannedArray:
    key: str
    table: str
    attr: str
    where: Where
    cls: type
    fields: list[PlannedField]
    nodes: list[Node]
    secret: SecretShow = ""
    dependon: tuple[tuple[str, Where], ...] = ()
    help: str = ""


@dataclass
class Node:
    """How to construct one dataclass: each init field is a leaf key, a nested node or an array."""

    cls: type
    members: list[tuple[str, PlannedField | Node | PlannedArray]] = field(default_factory=list)


@dataclass
class Plan:
    kind: Kind
    cls: type
    name: str  # prefix, or sub-command name
    description: str
    where: Where
    root: Node
    fields: list[PlannedField]
    arrays: list[PlannedArray]
    tables: list[tuple[str, str]]
    classes: list[type]


@dataclass(frozen=True)
class _Member:
    """One field being planned: its key and table, markers, inherited properties and help."""

    item: dataclasses.Field[Any]
    key: str
    table: str
    where: Where
    marks: dict[str, Any]
    dependon: tuple[tuple[str, Where], ...]
    explicit: SecretShow | None
    doc: str


@dataclass
class _Ctx:
    secret: SecretShow | None = None
    dependon: tuple[tuple[str, Where], ...] = ()
    element: bool = False
    command: bool = False
    #: How keys are shown in errors: ``None`` shows none (sub-commands), else the prefix shown.
    shown: str | None = ""


def plan_call(call: Call) -> Plan:
    """Resolve the type written at ``call`` and plan it; raises :class:`fw.GenerationError`."""
    where = call.where
    try:
        module = import_for_reading(call.file)
    except Exception as error:
        raise where.error(
            f"cannot import {call.file.name} to resolve the type: {type(error).__name__}: {error}"
        ) from None
    try:
        cls = eval(compile(ast.Expression(call.type_expr), str(call.file), "eval"), vars(module))
    except Exception as error:
        raise where.error(f"cannot resolve the type: {error}") from None
    if not isinstance(cls, type):
        raise where.error("not a class")
    _check_location(cls, call, where)
    return Planner(call.kind, cls, call.name, call.description, where).plan()


def _check_location(cls: type, call: Call, where: Where) -> None:
    """The runtime looks for the loader in the package of ``cls`` or a parent package of it."""
    folder = call.folder
    output_module = (
        f"{module_for(folder / '__init__.py')[0]}._fw_config"
        if (folder / "__init__.py").exists()
        else "_fw_config"
    )
    type_module = registry.module_name(cls)
    if output_module not in registry.loader_modules(cls):
        raise where.error(
            f"declared in {type_module}, but this directory's loader would be "
            f"{output_module}: list the directory of {type_module}'s package in [tool.fw.generate] config "
            "and register the type there"
        )


def to_snake(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", name).lower()


def help_text(raw: str) -> str:
    """First paragraph, directives dropped, joined on one line, one trailing period dropped."""
    paragraph: list[str] = []
    for line in inspect.cleandoc(raw).splitlines():
        stripped = line.strip()
        if is_directive(stripped):
            continue
        if not stripped:
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    text = " ".join(paragraph)
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


def _split(hint: Any) -> tuple[Any, list[Any]]:
    if typing.get_origin(hint) is typing.Annotated:
        base, *extras = typing.get_args(hint)
        return base, list(extras)
    return hint, []


def _type_text(hint: Any) -> str:
    if isinstance(hint, type) and not typing.get_args(hint):
        return hint.__name__
    return repr(hint).replace("typing.", "").replace("datetime.", "")


Shape = tuple[Literal["scalar", "struct", "array"], Any, tuple[str, ...]]


def _classify(hint: Any, where: Where) -> Shape:
    """``("scalar", kind, choices)``, ``("struct", cls, ())`` or ``("array", cls, ())``.

    A ``typing.NewType`` binds as the type it names: a new name never changes how a value parses.
    A ``Literal`` of strings is a string key with those choices. Anything else is refused.
    """
    while hasattr(hint, "__supertype__"):
        hint = hint.__supertype__
    if hint in _SCALAR_TYPES:
        return "scalar", _SCALAR_TYPES[hint], ()
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        if not args or not all(isinstance(arg, str) for arg in args):
            raise where.error(f"unsupported type {_type_text(hint)}: a Literal key holds strings only")
        return "scalar", "str", tuple(dict.fromkeys(args))
    if origin is list and len(args) == 1:
        if args[0] is str:
            return "scalar", "list", ()
        if isinstance(args[0], type) and dataclasses.is_dataclass(args[0]):
            return "array", args[0], ()
        raise where.error(f"unsupported type {_type_text(hint)} ({_BINDABLE})")
    if origin in (typing.Union, types.UnionType):
        raise where.error(
            f"unsupported type {_type_text(hint)}: optional (pointer-like) values are not bindable; "
            "use a default or falsy instead"
        )
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return "struct", hint, ()
    raise where.error(f"unsupported type {_type_text(hint)} ({_BINDABLE})")


def _parse_literal(kind: ValueKind, text: str, where: Where, what: str) -> Value:
    try:
        if kind == "duration":
            return parse_duration(text)
        return parse_text(kind, text)
    except (BadValue, DurationError) as error:
        raise where.error(f"unparsable {what} {text!r} for a {kind} field: {error}") from None


def _secret_for(key: str, explicit: SecretShow | None) -> SecretShow:
    if explicit is not None:
        return explicit
    lowered = key.lower()
    if any(word in lowered for word in SECRET_WORDS):
        return "dsn" if lowered.endswith(".dsn") else "mask"
    return ""


_MARKERS: list[tuple[type, str, str]] = [
    (m.Default, "default", "value"),
    (m.Key, "key", "name"),
    (m.Opt, "opt", "spec"),
    (m.Env, "env", "name"),
    (m.Help, "help", "text"),
    (m.Secret, "secret", "mode"),
    (m.DependOn, "dependon", "key"),
    (m.Falsy, "falsy", "value"),
    (m.Arg, "arg", "kind"),
    (m.Enum, "enum", "values"),
]


class Planner:
    """Plans one registration; collects the classes it touches for the fingerprint."""

    def __init__(self, kind: Kind, cls: type, name: str, description: str, where: Where) -> None:
        self.kind = kind
        self.cls = cls
        self.name = name
        self.description = description
        self.where = where
        self.fields: list[PlannedField] = []
        self.arrays: list[PlannedArray] = []
        self.tables: list[tuple[str, str]] = []
        self.classes: list[type] = []

    def plan(self) -> Plan:
        if not dataclasses.is_dataclass(self.cls):
            raise self.where.error("not a dataclass")
        source = class_source(self.cls)
        command = self.kind == "command"
        prefix = "" if command else self.name
        if prefix:
            self.tables.append((prefix, help_text(source.doc)))
        ctx = _Ctx(command=command, shown=None if command else prefix)
        root = self._walk(self.cls, prefix, prefix, ctx, (), self.fields)
        if command:
            self._check_positionals()
        return Plan(
            self.kind,
            self.cls,
            self.name,
            self.description,
            self.where,
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
            raise Where(source.file, source.line, cls.__qualname__).error(
                "reaches itself (self-reaching structs)"
            )
        if cls not in self.classes:
            self.classes.append(cls)
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception as error:
            raise Where(source.file, source.line, cls.__qualname__).error(
                f"cannot resolve the annotations: {error}"
            ) from None
        node = Node(cls)
        for item in dataclasses.fields(cls):
            if not item.init:
                continue
            base, extras = _split(hints[item.name])
            named = [str(extra.name) for extra in extras if isinstance(extra, m.Key)]
            name = named[0] if named else to_snake(item.name)
            key = f"{key_prefix}.{name}" if key_prefix else name
            shown = "" if ctx.shown is None else f"{ctx.shown}.{name}" if ctx.shown else name
            where = Where(source.file, source.line_of(item.name), field_subject(cls, item.name, shown))
            marks = self._markers(extras, where)
            shape, target, choices = _classify(base, where)
            doc = marks.get("help", help_text(source.docs.get(item.name, "")))
            dependon = ctx.dependon + self._dependon(marks, key_prefix, where)
            explicit = marks.get("secret", ctx.secret)
            member = _Member(item, key, table, where, marks, dependon, explicit, doc)
            if shape == "struct":
                self._refuse(marks, ("default", "opt", "env", "arg", "enum"), where, "a nested struct field")
                if "falsy" in marks:
                    raise where.error("falsy is not allowed on a nested struct field")
                if ctx.element:
                    raise where.error("nested tables inside table-array elements are not supported")
                sub_doc = doc or help_text(class_source(target).doc)
                if not ctx.command:
                    self.tables.append((key, sub_doc))
                shown_prefix = None if ctx.shown is None else (f"{ctx.shown}.{name}" if ctx.shown else name)
                inner = dataclasses.replace(ctx, secret=explicit, dependon=dependon, shown=shown_prefix)
                child = self._walk(target, key, key, inner, (*stack, cls), out)
                node.members.append((item.name, child))
                continue
            if shape == "array":
                node.members.append((item.name, self._array(member, target, ctx, (*stack, cls))))
                continue
            planned = self._leaf(member, target, ctx, choices)
            out.append(planned)
            node.members.append((item.name, planned))
        return node

    def _array(self, member: _Member, target: type, ctx: _Ctx, stack: tuple[type, ...]) -> PlannedArray:
        """A ``list[SomeDataclass]`` field: ``[[key]]`` elements, read from the file only."""
        where, key, explicit = member.where, member.key, member.explicit
        if ctx.command:
            raise where.error("sub-commands cannot take struct slices (list of dataclasses)")
        if ctx.element:
            raise where.error("nested table arrays are not supported")
        self._refuse(
            member.marks, ("default", "opt", "env", "falsy", "arg", "enum"), where, "a table-array field"
        )
        if target.__module__.rpartition(".")[0] != stack[-1].__module__.rpartition(".")[0]:
            raise where.error(
                f"table-array element {target.__qualname__} must be a dataclass of the same package"
            )
        if target in stack:
            raise where.error(f"{target.__qualname__} reaches itself (self-reaching structs)")
        element_fields: list[PlannedField] = []
        element_ctx = _Ctx(secret=explicit, element=True, shown=f"{key}[]")
        element_node = self._walk(target, "", key, element_ctx, stack, element_fields)
        for planned in element_fields:
            secret = _secret_for(f"{key}.{planned.spec.key}", explicit)
            planned.spec = dataclasses.replace(planned.spec, secret=secret)
        array = PlannedArray(
            key,
            member.table,
            member.item.name,
            where,
            target,
            element_fields,
            [element_node],
            _secret_for(key, explicit) if explicit else "",
            member.dependon,
            member.doc or help_text(class_source(target).doc),
        )
        self.arrays.append(array)
        return array

    @staticmethod
    def _markers(extras: list[Any], where: Where) -> dict[str, Any]:
        marks: dict[str, Any] = {}
        for extra in extras:
            for marker_type, label, attribute in _MARKERS:
                if isinstance(extra, marker_type):
                    if label in marks:
                        raise where.error(f"{label} given twice")
                    marks[label] = getattr(extra, attribute)
                    break
            else:
                if isinstance(extra, (m.Source, m.Check)):
                    raise where.error(
                        f"{type(extra).__name__.lower()} is a request-binding marker, "
                        "not a configuration marker"
                    )
        if "secret" in marks and marks["secret"] not in ("mask", "hide", "show", "dsn"):
            raise where.error(f"secret must be mask, hide, show or dsn, not {marks['secret']!r}")
        if "key" in marks and not _KEY_NAME.fullmatch(str(marks["key"])):
            raise where.error(f"key {marks['key']!r} must be one name (letters, digits, _ and -)")
        if "help" in marks:
            marks["help"] = str(marks["help"])
        return marks

    @staticmethod
    def _choices(
        marks: dict[str, Any], kind: ValueKind, literal: tuple[str, ...], starts_empty: bool, where: Where
    ) -> tuple[str, ...]:
        """The accepted values: a ``Literal`` (``""`` only when listed) or ``fw.enum`` (which
        also accepts the empty zero value of a key without a default: "not set")."""
        if "enum" not in marks:
            if literal and starts_empty and "" not in literal:
                raise where.error(
                    "a Literal key without a default starts empty, which the Literal does not allow: "
                    'declare fw.default(...) or add "" to the Literal'
                )
            return literal
        if literal:
            raise where.error("choices given twice: a Literal type and fw.enum")
        if kind != "str":
            raise where.error(f"fw.enum applies to str keys, not to a {kind} key (use a Literal of strings)")
        values = [part.strip() for part in str(marks["enum"]).split(",")]
        if any(not value for value in values):
            raise where.error(f"fw.enum({marks['enum']!r}): every choice must be a non-empty name")
        return tuple(dict.fromkeys(["", *values] if starts_empty else values))

    @staticmethod
    def _refuse(marks: dict[str, Any], labels: tuple[str, ...], where: Where, place: str) -> None:
        for label in labels:
            if label in marks:
                raise where.error(f"{label} is not allowed on {place}")

    @staticmethod
    def _dependon(marks: dict[str, Any], key_prefix: str, where: Where) -> tuple[tuple[str, Where], ...]:
        if "dependon" not in marks:
            return ()
        target = str(marks["dependon"])
        if not target or target == ".":
            raise where.error("dependon needs a key or .sibling")
        if target.startswith("."):
            target = f"{key_prefix}{target}" if key_prefix else target[1:]
        return ((target, where),)

    def _leaf(self, member: _Member, kind: ValueKind, ctx: _Ctx, literal: tuple[str, ...]) -> PlannedField:
        """A key holding one value (a list of strings counts as one)."""
        where, marks = member.where, member.marks
        if ctx.element:
            for label in ("opt", "env", "falsy", "dependon", "secret"):
                if label in marks:
                    raise where.error(
                        f"{label} is not allowed on table-array element fields "
                        "(elements come only from the file)"
                    )
        if ctx.command:
            for label in ("env", "falsy", "dependon", "secret"):
                if label in marks:
                    raise where.error(
                        f"{label} is not allowed on sub-command fields (they come from the command line)"
                    )
        elif "arg" in marks:
            raise where.error("arg is only for sub-command fields")
        default = self._default(member.item, kind, marks, where)
        falsy: Value | None = None
        if "falsy" in marks:
            if kind in ("bool", "list"):
                raise where.error(f"falsy is not allowed on a {kind} field")
            falsy = _parse_literal(kind, str(marks["falsy"]), where, "falsy value")
        choices = self._choices(marks, kind, literal, default is None and falsy is None, where)
        for what, value in (("default", default), ("falsy value", falsy)):
            if choices and value is not None and value not in choices:
                raise where.error(
                    f"{what} {value!r} is not one of the choices: {', '.join(map(repr, choices))}"
                )
        opts, env = self._names(member.key, marks, ctx, where)
        arg = marks.get("arg")
        if arg is not None:
            if arg not in ("required", "optional", "*"):
                raise where.error(f"arg must be required, optional or *, not {arg!r}")
            opts = ()
        spec = Field(
            key=member.key,
            kind=kind,
            table=member.table,
            default=default,
            env=env,
            opts=opts,
            secret="" if ctx.command else _secret_for(member.key, member.explicit),
            dependon=tuple(dict.fromkeys(target for target, _ in member.dependon)),
            falsy=falsy,
            help=member.doc,
            choices=choices,
        )
        return PlannedField(spec, member.item.name, where, member.dependon, arg)

    @staticmethod
    def _default(
        item: dataclasses.Field[Any], kind: ValueKind, marks: dict[str, Any], where: Where
    ) -> Value | None:
        if "default" in marks:
            return _parse_literal(kind, str(marks["default"]), where, "default")
        if item.default is dataclasses.MISSING:
            return None
        literal = item.default
        if not isinstance(literal, (str, bool, int, timedelta)) or (
            kind == "int" and isinstance(literal, bool)
        ):
            return None
        if kind == "duration" and not isinstance(literal, timedelta):
            raise where.error(
                "unparsable default: a duration default must be a timedelta or fw.default('30s')"
            )
        return literal

    @staticmethod
    def _names(
        key: str, marks: dict[str, Any], ctx: _Ctx, where: Where
    ) -> tuple[tuple[str, ...], str | None]:
        """The command-line options and the environment variable of a leaf key."""
        if "opt" in marks:
            long, _, short = str(marks["opt"]).partition(",")
            long, short = long.strip(), short.strip()
            if not _OPT_LONG.fullmatch(long):
                raise where.error(f"opt {marks['opt']!r}: the long option must be letters, digits, _, - or .")
            if short and not _OPT_SHORT.fullmatch(short):
                raise where.error(f"opt {marks['opt']!r}: the short option must be one letter or digit")
            opts = (f"--{long}", f"-{short}") if short else (f"--{long}",)
            derived_env = long.replace("-", "_").replace(".", "_").upper()
        else:
            opts = (f"--{key.replace('.', '-')}",)
            derived_env = key.replace(".", "_").replace("-", "_").upper()
        if ctx.element:
            return (), None
        if ctx.command:
            return opts, None
        if "env" not in marks:
            return opts, derived_env
        named = str(marks["env"])
        if named == "-":
            return opts, None
        if not _ENV_NAME.fullmatch(named):
            raise where.error(f"env {named!r}: a name starts with a letter or underscore (A-Z a-z 0-9 _)")
        return opts, named

    def _check_positionals(self) -> None:
        order = {"required": 0, "optional": 1, "*": 2}
        last = -1
        for planned in self.fields:
            if planned.arg is None:
                continue
            rank = order[planned.arg]
            if planned.arg == "*" and planned.spec.kind != "list":
                raise planned.where.error('arg("*") takes the remaining positionals: declare it list[str]')
            if planned.arg != "*" and planned.spec.kind == "list":
                raise planned.where.error(f'arg("{planned.arg}") binds one value: use arg("*") for a list')
            if rank < last or (rank == 2 and last == 2):
                raise planned.where.error(
                    'positionals go required first, then optional, then one arg("*") last'
                )
            last = rank
