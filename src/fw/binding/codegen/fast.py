"""A binder's fast path: msgspec ``Struct`` types that decode and validate a JSON body in one step.

The full binder path decodes JSON into a dict and checks every field in Python, collecting every
error. Most requests are valid, so each binder whose body fields msgspec can check exactly also
gets generated ``Struct`` classes (constraints as ``msgspec.Meta``) and a decoder. The binder
tries the decoder first; it uses the result only if the decoder accepted the body, and falls
back to the full path on any failure, so errors always come from the full path.

The contract is one-sided: whatever the fast path accepts, the full path accepts with equal
values. Where msgspec is stricter (``15.0`` for an int, ``null`` for a defaulted field, an
empty string under a pattern that is skipped for empty values, an absent nested object) the
request just takes the full path. Where msgspec cannot express a rule exactly (bytes, non-str
enums, formats inside nested objects, recursive types, rest maps, files) the binder gets no
fast path at all.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fw.binding.codegen.plan import FieldPlan, StructPlan, TypeRef
from fw.binding.values import INT_MAX, INT_MIN

if TYPE_CHECKING:
    from fw.binding.codegen.emit import _Module

#: The full path rejects JSON integers outside (-2**1023, 2**1023) for a float field.
_FLOAT_LIMIT = 2.0**1023
_FORMAT_CHECK = {"email": "is_email", "uuid": "is_uuid", "date": "is_date", "time": "is_time",
                 "datetime": "is_datetime"}  # fmt: skip
_ZERO = {"str": '""', "int": "0", "float": "0.0", "bool": "False"}


class Ineligible(Exception):
    """Some body field has a rule or type msgspec cannot check exactly as the full path does."""


class FastPaths:
    """The Struct classes and converters of one generated module, emitted once per dataclass."""

    def __init__(self, module: _Module) -> None:
        self.module = module
        self.structs: dict[type, int] = {}
        self.lines: list[str] = []
        self._active: set[type] = set()

    def binder(self, number: int, body_fields: list[FieldPlan]) -> FastBinder | None:
        """The fast path of one top-level binder, or ``None`` when it cannot have one."""
        try:
            for field in body_fields:
                if field.source == "rest" or field.type.kind == "file":
                    raise Ineligible
            annotations = [self._field(field, nested=False) for field in body_fields]
        except Ineligible:
            return None
        name = f"_J{number}b"
        self._emit_class(name, body_fields, annotations)
        decoder = f"_D{number}"
        self.lines.append(f"{decoder} = Decoder({name}).decode")
        checks = [
            f"({_guard(field, f'jb.a{i}')}not {_FORMAT_CHECK[rule.name]}(jb.a{i}))"
            for i, field in enumerate(body_fields)
            for rule in field.rules
            if rule.name in _FORMAT_CHECK
        ]
        values = [self._convert(field.type, f"jb.a{i}", 0) for i, field in enumerate(body_fields)]
        return FastBinder(decoder, checks, dict(zip((id(f) for f in body_fields), values, strict=True)))

    # Struct classes ----------------------------------------------------------------------------
    def _struct(self, plan: StructPlan) -> str:
        if plan.cls in self._active:
            raise Ineligible  # a recursive type: msgspec would need forward references
        if plan.cls not in self.structs:
            self._active.add(plan.cls)
            try:
                annotations = [self._field(f, nested=True) for f in plan.fields]
            finally:
                self._active.discard(plan.cls)
            number = len(self.structs)
            self.structs[plan.cls] = number
            self._emit_class(f"_J{number}", plan.fields, annotations)
            self._emit_builder(plan, number)
        return f"_J{self.structs[plan.cls]}"

    def _emit_class(self, name: str, fields: list[FieldPlan], annotations: list[tuple[str, str]]) -> None:
        renames = {f"a{i}": field.wire for i, field in enumerate(fields)}
        # Fields without a default first, as Python requires; msgspec matches by name, not order.
        order = sorted(range(len(fields)), key=lambda i: annotations[i][1] != "")
        body = [f"    a{i}: {annotations[i][0]}{annotations[i][1]}" for i in order] or ["    pass"]
        self.lines.append(f"class {name}(Struct, forbid_unknown_fields=False, rename={renames!r}):")
        self.lines.extend(body)
        self.lines.append("")

    def _emit_builder(self, plan: StructPlan, number: int) -> None:
        cls = self.module.cls(plan.cls)
        args = [
            (f"{f.name}=" if f.kw_only else "") + self._convert(f.type, f"s.a{i}", 0)
            for i, f in enumerate(plan.fields)
        ]
        self.lines.append(f"def _Y{number}(s):")
        self.lines.append(f"    return {cls}({', '.join(args)})")
        self.lines.append("")

    # Annotations -------------------------------------------------------------------------------
    def _field(self, field: FieldPlan, nested: bool) -> tuple[str, str]:
        """The annotation of one Struct field and its default (``" = ..."``, or ``""`` for none)."""
        ref = field.type
        if ref.kind == "file" or ref.kind == "rest":
            raise Ineligible
        if nested and any(rule.name in _FORMAT_CHECK for rule in field.rules):
            raise Ineligible
        if ref.kind == "scalar":
            value = self._scalar(field)
        else:
            value = self._value(ref)
            if field.required and ref.kind in ("list", "dict"):
                value = f"Annotated[{value}, Meta(min_length=1)]"
        if field.required:
            return value, ""  # absent (or null): msgspec refuses, the full path reports it
        if field.has_default:
            return value, f" = {field.default!r}"
        if ref.optional:
            return f"{value} | None", " = None"
        if ref.kind == "scalar":
            return value, f" = {_ZERO[ref.scalar]}"
        if ref.kind == "list":
            return value, " = []"
        if ref.kind == "dict":
            return value, " = {}"
        return value, ""  # an absent nested object is bound from {} by the full path

    def _scalar(self, field: FieldPlan) -> str:
        scalar = field.type.scalar
        if scalar == "bytes":
            raise Ineligible
        if field.enum is not None:
            if scalar != "str" or field.rules:
                raise Ineligible
            return f"Literal[{', '.join(repr(v) for v in field.enum)}]"
        meta: dict[str, object] = {}
        if scalar == "str":
            low, high = (1 if field.required else 0), None
            for rule in field.rules:
                if rule.name == "minlen":
                    low = max(low, rule.length)
                elif rule.name == "maxlen":
                    high = rule.length if high is None else min(high, rule.length)
                elif rule.name == "len":
                    low = max(low, rule.length)
                    high = rule.length if high is None else min(high, rule.length)
                elif rule.name == "pattern":
                    meta["pattern"] = rule.text
            if low:
                meta["min_length"] = low
            if high is not None:
                meta["max_length"] = high
        elif scalar in ("int", "float"):
            meta.update(self._bounds(field, scalar))
        return _annotated(scalar, meta)

    def _bounds(self, field: FieldPlan, scalar: str) -> dict[str, object]:
        low = next((r.number for r in field.rules if r.name == "min"), None)
        high = next((r.number for r in field.rules if r.name == "max"), None)
        for bound in (low, high):
            if bound is not None and not math.isfinite(bound):
                raise Ineligible
        if scalar == "int":
            return {
                "ge": INT_MIN if low is None else max(INT_MIN, math.ceil(low)),
                "le": INT_MAX if high is None else min(INT_MAX, math.floor(high)),
            }
        if (low is not None and low <= -_FLOAT_LIMIT) or (high is not None and high >= _FLOAT_LIMIT):
            raise Ineligible
        meta: dict[str, object] = {}
        meta.update({"gt": -_FLOAT_LIMIT} if low is None else {"ge": low})
        meta.update({"lt": _FLOAT_LIMIT} if high is None else {"le": high})
        return meta

    def _value(self, ref: TypeRef) -> str:
        """The annotation of a value inside a composite (no rules, no default)."""
        if ref.kind == "scalar":
            if ref.scalar == "bytes":
                raise Ineligible
            if ref.scalar == "int":
                return _annotated("int", {"ge": INT_MIN, "le": INT_MAX})
            if ref.scalar == "float":
                return _annotated("float", {"gt": -_FLOAT_LIMIT, "lt": _FLOAT_LIMIT})
            return ref.scalar
        if ref.kind == "struct" and ref.struct is not None:
            return self._struct(ref.struct)
        if ref.kind in ("list", "dict") and ref.item is not None:
            item = self._value(ref.item)
            return f"list[{item}]" if ref.kind == "list" else f"dict[str, {item}]"
        raise Ineligible

    # Struct -> dataclass -----------------------------------------------------------------------
    def _convert(self, ref: TypeRef, expr: str, depth: int) -> str:
        """An expression turning the decoded ``expr`` into the dataclass-side value."""
        if ref.kind == "struct" and ref.struct is not None:
            value = f"_Y{self.structs[ref.struct.cls]}({expr})"
        elif ref.kind in ("list", "dict") and ref.item is not None and _holds_struct(ref.item):
            w, k = f"w{depth}", f"k{depth}"
            inner = self._convert(ref.item, w, depth + 1)
            if ref.kind == "list":
                value = f"[{inner} for {w} in {expr}]"
            else:
                value = f"{{{k}: {inner} for {k}, {w} in {expr}.items()}}"
        else:
            return expr
        return f"(None if {expr} is None else {value})" if ref.optional else value


class FastBinder:
    """What one binder needs: the decoder, post-decode format checks, each field's value."""

    def __init__(self, decoder: str, checks: list[str], values: dict[int, str]) -> None:
        self.decoder = decoder
        self.checks = checks
        self._values = values

    def value(self, field: FieldPlan) -> str:
        return self._values[id(field)]


def _annotated(scalar: str, meta: dict[str, object]) -> str:
    if not meta:
        return scalar
    arguments = ", ".join(f"{key}={value!r}" for key, value in meta.items())
    return f"Annotated[{scalar}, Meta({arguments})]"


def _guard(field: FieldPlan, expr: str) -> str:
    """Format rules skip an empty (or absent) value unless the field is required."""
    return "" if field.required else f"{expr} and "


def _holds_struct(ref: TypeRef) -> bool:
    if ref.kind == "struct":
        return True
    return ref.item is not None and _holds_struct(ref.item)
