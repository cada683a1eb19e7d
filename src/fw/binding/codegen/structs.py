"""The msgspec ``Struct`` shapes a binder decodes a JSON body into, in C, before checking its rules.

A JSON body is first decoded against generated ``Struct`` classes that carry the field types but
none of fw's rules: every field is optional (``T | None = None``, so absent and ``null`` both read
as ``None``, as they do on the full path) and wire names are the Struct's renames. When that
decode succeeds the generated code only checks rules on values that already have the right
type; that serves valid and invalid bodies alike, and an invalid one still gets every field error.

When it fails (malformed JSON, a value of the wrong type anywhere, an integer sent as ``15.0``)
the binder takes its full path, which decodes the body generically and reports every problem.
The contract: whenever the decoder accepts a body, the binder's outcome (the bound value or the
complete error list) is exactly the full path's. Types whose JSON reading msgspec cannot mirror
exactly (files, rest maps, bytes inside lists and maps, recursive dataclasses) keep the full path
only.
"""

from __future__ import annotations

from fw.binding.codegen.plan import FieldPlan, StructPlan, TypeRef
from fw.binding.values import INT_MAX, INT_MIN

#: The full path rejects JSON numbers at or beyond 2**1023 in magnitude for a float field.
_FLOAT_LIMIT = 2.0**1023
#: Scalar annotations: JSON integers outside int64 and non-finite floats are not values fw binds.
PRELUDE = [
    f"_I64 = Annotated[int, Meta(ge={INT_MIN}, le={INT_MAX})]",
    f"_F64 = Annotated[float, Meta(gt={-_FLOAT_LIMIT!r}, lt={_FLOAT_LIMIT!r})]",
]
_SCALAR = {"str": "str", "bool": "bool", "int": "_I64", "float": "_F64", "bytes": "str"}


class Ineligible(Exception):
    """Some body field has a type the JSON decoder cannot read exactly as the full path does."""


class JsonStructs:
    """The Struct classes of one generated module; a nested dataclass gets its class once."""

    def __init__(self) -> None:
        self.numbers: dict[type, int] = {}
        self.lines: list[str] = []
        self._active: set[type] = set()

    def decoder(self, number: int, body_fields: list[FieldPlan]) -> str | None:
        """The decoder of one top-level binder's body fields, or ``None`` when it cannot have one."""
        try:
            for field in body_fields:
                if field.source == "rest" or field.type.kind == "file":
                    raise Ineligible
            annotations = [self._annotation(field.type, field_level=True) for field in body_fields]
        except Ineligible:
            return None
        self._emit_class(f"_J{number}b", body_fields, annotations)
        self.lines.append(f"_D{number} = Decoder(_J{number}b).decode")
        self.lines.append("")
        return f"_D{number}"

    def struct(self, plan: StructPlan) -> str:
        """The Struct class of a nested dataclass, emitted once."""
        if plan.cls in self._active:
            raise Ineligible  # a recursive type: msgspec would need forward references
        if plan.cls not in self.numbers:
            self._active.add(plan.cls)
            try:
                annotations = [self._annotation(field.type, field_level=True) for field in plan.fields]
            finally:
                self._active.discard(plan.cls)
            self.numbers[plan.cls] = len(self.numbers)
            self._emit_class(f"_J{self.numbers[plan.cls]}", plan.fields, annotations)
        return f"_J{self.numbers[plan.cls]}"

    def _emit_class(self, name: str, fields: list[FieldPlan], annotations: list[str]) -> None:
        renames = {f"a{i}": field.wire for i, field in enumerate(fields)}
        body = [f"    a{i}: {annotation} | None = None" for i, annotation in enumerate(annotations)]
        # gc=False: a decoded JSON tree holds no cycles, so the collector need not track it.
        self.lines.append(f"class {name}(Struct, forbid_unknown_fields=False, gc=False, rename={renames!r}):")
        self.lines.extend(body or ["    pass"])
        self.lines.append("")

    def _annotation(self, ref: TypeRef, field_level: bool) -> str:
        """The decoded type of a field's value, or (not ``field_level``) of a value inside a list or map."""
        if ref.kind == "scalar":
            if ref.scalar == "bytes" and not field_level:
                raise Ineligible  # base64 inside a composite is converted item by item on the full path
            return _SCALAR[ref.scalar]
        if ref.kind == "struct" and ref.struct is not None:
            return self.struct(ref.struct)
        if ref.kind in ("list", "dict") and ref.item is not None:
            item = self._annotation(ref.item, field_level=False)
            return f"list[{item}]" if ref.kind == "list" else f"dict[str, {item}]"
        raise Ineligible
