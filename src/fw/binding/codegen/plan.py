"""The build-time model of a bound dataclass: what ``fw generate`` reads once and writes code from.

Everything here runs at generation time only (it imports user modules and inspects annotations);
the request path never touches it. Every rule the spec makes a generation error is enforced
here, reported with the file:line, the dataclass and the field(s) concerned
(``app.py:15: Form.rest, Form.extra: more than one fw.payload("*") rest field in one dataclass``).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from fw.binding.codegen.rules import RULE_NAMES
from fw.binding.types import File, RawJSON
from fw.codegen.errors import Where, field_subject
from fw.codegen.source import class_source
from fw.errors import GenerationError
from fw.markers import Check, Default, Enum, Source

Kind = Literal["scalar", "file", "struct", "list", "dict", "rest"]
SCALARS: dict[type, str] = {str: "str", int: "int", float: "float", bool: "bool", bytes: "bytes"}
_RULES = RULE_NAMES
_MISSING: Any = dataclasses.MISSING
FILE_ONLY = "a fw.File comes from a top-level multipart body field only"


@dataclass
class TypeRef:
    """A field type fw knows how to bind."""

    kind: Kind
    scalar: str = ""
    optional: bool = False
    item: TypeRef | None = None
    struct: StructPlan | None = None
    raw: bool = False

    def describe(self) -> str:
        inner = {
            "scalar": self.scalar,
            "file": "fw.File",
            "struct": self.struct.cls.__qualname__ if self.struct else "dataclass",
            "list": f"list[{self.item.describe() if self.item else '?'}]",
            "dict": f"dict[str, {self.item.describe() if self.item else '?'}]",
            "rest": "dict[str, fw.RawJSON]" if self.raw else "dict[str, Any]",
        }[self.kind]
        return f"{inner} | None" if self.optional else inner


@dataclass
class Rule:
    name: str
    text: str = ""
    number: float = 0.0
    length: int = 0


@dataclass
class FieldPlan:
    name: str
    wire: str
    source: str
    type: TypeRef
    where: Where
    kw_only: bool
    required: bool = False
    rules: list[Rule] = field(default_factory=list)
    enum: list[Any] | None = None
    enum_text: list[str] = field(default_factory=list)
    has_default: bool = False
    default: Any = None
    doc: str | None = None

    @property
    def validated(self) -> bool:
        return self.required or bool(self.rules) or self.enum is not None


@dataclass
class StructPlan:
    cls: type
    file: str
    line: int
    doc: str | None
    fields: list[FieldPlan] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.cls.__module__}.{self.cls.__qualname__}"


def lower_camel(name: str) -> str:
    """``first_name`` -> ``firstName`` (leading underscores kept)."""
    stripped = name.lstrip("_")
    lead = name[: len(name) - len(stripped)]
    parts = stripped.split("_")
    return lead + parts[0] + "".join(part[:1].upper() + part[1:] for part in parts[1:] if part)


def is_deprecated(doc: str | None) -> bool:
    return doc is not None and any(p.strip().startswith("Deprecated:") for p in re.split(r"\n\s*\n", doc))


# Planning --------------------------------------------------------------------------------------
class Planner:
    """Plans dataclasses, collecting every generation error instead of stopping at the first.

    Each error names the file:line, the dataclass and the field (``Form.name: ...``).
    """

    def __init__(self, cbor: bool) -> None:
        self.cbor = cbor
        self.errors: list[GenerationError] = []
        self.plans: dict[type, StructPlan] = {}
        self._active: list[type] = []
        self._nested: set[type] = set()

    def error(self, at: Where, message: str) -> None:
        self.errors.append(at.error(message))

    def plan(self, cls: type, *, top: bool) -> StructPlan:
        """The plan of ``cls``; ``top=False`` when it is nested in another bound type.

        A plan is made once per class, but the rules for nested use are checked on every class
        that is nested anywhere, whichever use was planned first: a type parsed directly and
        also nested elsewhere must not carry path/query/header/cookie/method fields, rest maps
        or files into the nested use (the nested binder reads only the body object).
        """
        known = self.plans.get(cls)
        if known is None:
            known = self._plan(cls)
        if not top:
            self._nested_use(cls)
        return known

    def _nested_use(self, cls: type) -> None:
        if cls in self._nested:
            return
        self._nested.add(cls)
        if cls not in self._active:
            self._check_nested(self.plans[cls])
        # else: the plan is still being made (a recursive type); checked when it completes.

    def _check_nested(self, plan: StructPlan) -> None:
        for planned in plan.fields:
            if planned.source == "rest":
                self.error(planned.where, "a rest map is allowed on the top-level type only")
            elif planned.type.kind == "file":
                self.error(planned.where, FILE_ONLY)
            elif planned.source not in ("input", "payload"):
                self.error(
                    planned.where,
                    f"a nested dataclass binds from the body only; fw.{planned.source} is allowed on the "
                    "top-level type",
                )

    def _plan(self, cls: type) -> StructPlan:
        source = class_source(cls)
        plan = StructPlan(cls, source.file, source.line, source.doc or None)
        self.plans[cls] = plan
        self._active.append(cls)
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception as failure:
            self.error(
                Where(source.file, source.line, cls.__qualname__),
                f"cannot resolve the annotations: {failure}",
            )
            self._active.pop()
            return plan
        rest_fields: list[FieldPlan] = []
        for item in dataclasses.fields(cls):
            if not item.init:
                continue
            at = Where(source.file, source.line_of(item.name), field_subject(cls, item.name))
            planned = self._field(item, hints.get(item.name, Any), at)
            if planned is None:
                continue
            planned.doc = source.docs.get(item.name)
            if planned.type.kind == "rest":
                rest_fields.append(planned)
                if self.cbor:
                    self.error(at, 'a fw.payload("*") rest map cannot be combined with api.cbor = true')
            plan.fields.append(planned)
        if len(rest_fields) > 1:
            self.error(
                rest_fields[1].where.about(*(rest.where for rest in rest_fields)),
                'more than one fw.payload("*") rest field in one dataclass',
            )
        self._active.pop()
        if cls in self._nested:
            self._check_nested(plan)
        return plan

    def _field(self, item: dataclasses.Field[Any], hint: Any, at: Where) -> FieldPlan | None:
        base: Any = hint
        metadata: tuple[Any, ...] = ()
        if typing.get_origin(hint) is Annotated:
            base, metadata = hint.__origin__, hint.__metadata__
        elif typing.get_origin(hint) in (typing.Union, types.UnionType):
            # `Annotated[int, fw.query("n")] | None` reads as `Annotated[int | None, fw.query("n")]`.
            members = typing.get_args(hint)
            inner = [m for m in members if typing.get_origin(m) is Annotated]
            if len(members) == 2 and type(None) in members and len(inner) == 1:
                base, metadata = inner[0].__origin__ | None, inner[0].__metadata__
        sources = [m for m in metadata if isinstance(m, Source)]
        checks = [m for m in metadata if isinstance(m, Check)]
        enums = [m for m in metadata if isinstance(m, Enum)]
        defaults = [m for m in metadata if isinstance(m, Default)]
        for found, what in (
            (sources, "source marker"),
            (checks, "fw.check"),
            (enums, "fw.enum"),
            (defaults, "fw.default"),
        ):
            if len(found) > 1:
                self.error(at, f"more than one {what}")
        source = sources[0] if sources else Source("input", None)
        rest = source.kind == "payload" and source.name == "*"
        ref = self._type(base, at, rest)
        if ref is None:
            return None
        if ref.kind == "file" and source.kind not in ("input", "payload"):
            self.error(at, FILE_ONLY)
            return None
        wire = source.name if source.name and not rest else lower_camel(item.name)
        planned = FieldPlan(item.name, wire, "rest" if rest else source.kind, ref, at, bool(item.kw_only))
        self._check_source(planned)
        if checks:
            self._rules(planned, checks[0].rules)
        if enums:
            self._enum(planned, enums[0].values)
        if defaults:
            self._default(planned, defaults[0].value)
        return planned

    def _type(self, hint: Any, at: Where, rest: bool) -> TypeRef | None:
        optional = False
        origin = typing.get_origin(hint)
        if origin is typing.Union or origin is types.UnionType:
            args = [a for a in typing.get_args(hint) if a is not type(None)]
            if len(args) == 1 and len(typing.get_args(hint)) == 2:
                optional, hint = True, args[0]
                origin = typing.get_origin(hint)
        if rest:
            pair = typing.get_args(hint)
            if origin is dict and len(pair) == 2 and pair[0] is str and pair[1] in (Any, RawJSON):
                return TypeRef("rest", optional=False, raw=pair[1] is RawJSON)
            self.error(at, 'a fw.payload("*") rest field must be dict[str, Any] or dict[str, fw.RawJSON]')
            return None
        ref = self._value_type(hint, at, recursive_ok=optional)
        if ref is not None:
            ref.optional = optional
        return ref

    def _value_type(self, hint: Any, at: Where, recursive_ok: bool = False) -> TypeRef | None:
        if hint in SCALARS:
            return TypeRef("scalar", SCALARS[hint])
        if hint is File:
            return TypeRef("file")
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin is list and len(args) == 1:
            item = self._value_type(args[0], at, recursive_ok=True)
            if item is None:
                return None
            if item.kind == "file":
                self.error(at, "list[fw.File] is not supported; declare one fw.File per part")
                return None
            return TypeRef("list", item=item)
        if origin is dict and len(args) == 2:
            if args[0] is not str:
                self.error(at, "map keys must be str")
                return None
            item = self._value_type(args[1], at, recursive_ok=True)
            if item is None:
                return None
            if item.kind == "file":
                self.error(at, "dict of fw.File is not supported")
                return None
            return TypeRef("dict", item=item)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            if hint in self._active and recursive_ok:
                self._nested_use(hint)
                return TypeRef("struct", struct=self.plans[hint])
            if hint in self._active:
                self.error(
                    at,
                    f"{hint.__qualname__} reaches itself; such a field must be optional (`| None`) "
                    "to be bound",
                )
                return None
            return TypeRef("struct", struct=self.plan(hint, top=False))
        self.error(at, f"unsupported type {_type_text(hint)}")
        return None

    def _check_source(self, planned: FieldPlan) -> None:
        ref, source = planned.type, planned.source
        if source in ("path", "header", "cookie") and ref.kind != "scalar":
            self.error(
                planned.where,
                f"fw.{source} binds one value; {ref.describe()} is not allowed "
                f"(repeated {source} values are refused)",
            )
        elif source == "method" and not (ref.kind == "scalar" and ref.scalar == "str"):
            self.error(planned.where, "fw.method() needs a str field")
        elif source == "query" and not (
            ref.kind == "scalar"
            or (ref.kind == "list" and ref.item is not None and ref.item.kind == "scalar")
        ):
            self.error(planned.where, f"fw.query binds a scalar or list[scalar], not {ref.describe()}")

    def _rules(self, planned: FieldPlan, text: str) -> None:
        ref = planned.type
        at = planned.where
        tokens = text.split(",")
        index = 0
        while index < len(tokens):
            token = tokens[index].strip()
            index += 1
            if not token:
                continue
            rule, _, argument = token.partition("=")
            rule = rule.strip()
            if rule in ("enum", "default"):
                self.error(at, f"{rule}= inside fw.check; use fw.{rule}(...) as its own marker")
                continue
            if rule not in _RULES:
                self.error(at, f"unknown rule {rule!r} in fw.check")
                continue
            if rule == "pattern":
                regex = ",".join([token.partition("=")[2], *tokens[index:]])
                index = len(tokens)
                trailing = regex.rsplit(",", 1)
                if len(trailing) == 2 and trailing[1].strip().partition("=")[0].strip() in (
                    *_RULES,
                    "enum",
                    "default",
                ):
                    self.error(at, "pattern= must be the last rule in fw.check")
                    continue
                argument = regex
            if rule != "required" and ref.kind != "scalar":
                self.error(at, f"only `required` applies to a {ref.describe()} field, not {rule!r}")
                continue
            if rule == "required":
                planned.required = True
                continue
            if rule in ("min", "max"):
                if ref.scalar not in ("int", "float"):
                    self.error(at, f"{rule} needs an int or float field")
                    continue
                try:
                    number = float(argument)
                except ValueError:
                    self.error(at, f"{rule}={argument!r} is not a number")
                    continue
                planned.rules.append(Rule(rule, argument.strip(), number=number))
                continue
            if ref.scalar != "str":
                self.error(at, f"{rule} needs a str field")
                continue
            if rule in ("minlen", "maxlen", "len"):
                if not argument.strip().isdigit():
                    self.error(at, f"{rule}={argument!r} is not a length")
                    continue
                planned.rules.append(Rule(rule, argument.strip(), length=int(argument)))
            elif rule == "pattern":
                try:
                    re.compile(argument)
                except re.error as bad:
                    self.error(at, f"invalid pattern {argument!r}: {bad}")
                    continue
                planned.rules.append(Rule("pattern", argument))
            else:
                if argument:
                    self.error(at, f"{rule} takes no value")
                    continue
                planned.rules.append(Rule(rule))

    def _scalar_or_error(self, planned: FieldPlan, what: str) -> bool:
        if planned.type.kind != "scalar":
            self.error(
                planned.where, f"fw.{what} applies to scalar fields only, not {planned.type.describe()}"
            )
            return False
        return True

    def _enum(self, planned: FieldPlan, text: str) -> None:
        if not self._scalar_or_error(planned, "enum"):
            return
        values: list[Any] = []
        texts = [part.strip() for part in text.split(",")]
        for part in texts:
            value = parse_literal(planned.type.scalar, part)
            if value is _MISSING or part == "":
                self.error(planned.where, f"enum value {part!r} is not a valid {planned.type.scalar}")
                return
            values.append(value)
        planned.enum, planned.enum_text = values, texts

    def _default(self, planned: FieldPlan, text: str) -> None:
        if not self._scalar_or_error(planned, "default"):
            return
        value = parse_literal(planned.type.scalar, text)
        if value is _MISSING:
            self.error(planned.where, f"default {text!r} is not a valid {planned.type.scalar}")
            return
        planned.has_default, planned.default = True, value


def parse_literal(scalar: str, text: str) -> Any:
    """Parse a tag value as the field type, the way request text is parsed; ``MISSING`` if it cannot."""
    from fw.binding import values

    if scalar == "str":
        return text
    if scalar == "bytes":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return _MISSING
    convert = {"int": values.int_text, "float": values.float_text, "bool": values.bool_text}[scalar]
    result = convert(text)
    return _MISSING if result is values.BAD else result


def _type_text(hint: Any) -> str:
    return hint.__qualname__ if isinstance(hint, type) else repr(hint).replace("typing.", "")
