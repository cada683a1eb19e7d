"""OpenAPI 3.1 pieces for the bound dataclasses, written into ``_fw_binders.py`` at generation time.

The generator knows which handler function calls ``fw.parse(T, ...)``; it records, per handler,
the parameters, the request body schema and whether validation can reject the request. The App
assembles the document from these pieces and its route table when it starts, so serving
``/openapi.json`` needs no reflection either.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from fw.binding.codegen.plan import FieldPlan, StructPlan, TypeRef, is_deprecated
from fw.binding.codegen.rules import FORMATS

if TYPE_CHECKING:
    from fw.binding.codegen.scan import CallSite

REF_PREFIX = "#/components/schemas/"
_FORMATS = FORMATS
_SCALAR_SCHEMA: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer", "format": "int64"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "bytes": {"type": "string", "contentEncoding": "base64"},
}


def schema_key(plan: StructPlan) -> str:
    return plan.key


def _json_value(value: Any) -> Any:
    return base64.b64encode(value).decode() if isinstance(value, bytes) else value


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() else value


def type_schema(ref: TypeRef) -> dict[str, Any]:
    if ref.kind == "scalar":
        schema = dict(_SCALAR_SCHEMA[ref.scalar])
    elif ref.kind == "file":
        schema = {"type": "string", "contentMediaType": "application/octet-stream"}
    elif ref.kind == "list":
        assert ref.item is not None
        schema = {"type": "array", "items": type_schema(ref.item)}
    elif ref.kind in ("dict", "rest"):
        schema = {"type": "object", "additionalProperties": type_schema(ref.item) if ref.item else True}
    else:
        assert ref.struct is not None
        schema = {"$ref": REF_PREFIX + schema_key(ref.struct)}
    if ref.optional:
        if "type" in schema and isinstance(schema["type"], str):
            schema["type"] = [schema["type"], "null"]
        else:
            schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def field_schema(field: FieldPlan) -> dict[str, Any]:
    schema = type_schema(field.type)
    for rule in field.rules:
        if rule.name == "min":
            schema["minimum"] = _number(rule.number)
        elif rule.name == "max":
            schema["maximum"] = _number(rule.number)
        elif rule.name == "minlen":
            schema["minLength"] = rule.length
        elif rule.name == "maxlen":
            schema["maxLength"] = rule.length
        elif rule.name == "len":
            schema["minLength"] = schema["maxLength"] = rule.length
        elif rule.name == "pattern":
            schema["pattern"] = rule.text
        elif rule.name in _FORMATS:
            schema["format"] = _FORMATS[rule.name]
    if field.required and field.type.kind == "scalar" and field.type.scalar == "str":
        schema["minLength"] = max(1, schema.get("minLength", 0))
    if field.required and field.type.kind == "list":
        schema["minItems"] = 1
    if field.enum is not None:
        schema["enum"] = [_json_value(value) for value in field.enum]
    if field.has_default:
        # A sentinel default (min=1 with default -1) lies outside the field's own rules; OpenAPI
        # requires a default to be valid, so such a default is documented as an extension.
        inside = field.enum is None or field.default in field.enum
        for rule in field.rules:
            if rule.name == "min" and field.default < rule.number:
                inside = False
            if rule.name == "max" and field.default > rule.number:
                inside = False
        schema["default" if inside else "x-fw-default"] = _json_value(field.default)
    if field.doc:
        schema["description"] = field.doc
        if is_deprecated(field.doc):
            schema["deprecated"] = True
    return schema


def demanded(field: FieldPlan, seen: frozenset[type] = frozenset()) -> bool:
    """Whether a request must carry ``field``: ``required``, or a non-optional dataclass whose own
    fields are demanded (binding it from nothing would fail)."""
    if field.required:
        return True
    ref = field.type
    if ref.kind != "struct" or ref.optional or ref.struct is None or ref.struct.cls in seen:
        return False
    return any(demanded(inner, seen | {ref.struct.cls}) for inner in ref.struct.fields)


def struct_schema(plan: StructPlan, body_only: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    open_rest = False
    for field in plan.fields:
        if field.source == "rest":
            open_rest = True
            continue
        if body_only and field.source not in ("input", "payload"):
            continue
        properties[field.wire] = field_schema(field)
        if demanded(field):
            required.append(field.wire)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if open_rest:
        schema["additionalProperties"] = True
    if plan.doc:
        schema["description"] = plan.doc
    return schema


def _validated(plan: StructPlan, seen: set[type] | None = None) -> bool:
    seen = seen if seen is not None else set()
    if plan.cls in seen:
        return False
    seen.add(plan.cls)
    for field in plan.fields:
        if field.validated:
            return True
        ref: TypeRef | None = field.type
        while ref is not None:
            if ref.struct is not None and _validated(ref.struct, seen):
                return True
            ref = ref.item
    return False


def _can_fail(field: FieldPlan) -> bool:
    """Whether binding this field alone can reject a request (a bad number, a repeated header...)."""
    text_only = field.type.kind == "scalar" and field.type.scalar == "str"
    return not (text_only and field.source in ("query", "path", "method"))


def _flat(field: FieldPlan) -> bool:
    ref = field.type
    return ref.kind in ("scalar", "file", "rest") or (
        ref.kind == "list" and ref.item is not None and ref.item.kind == "scalar"
    )


def operation_piece(plan: StructPlan, cbor: bool) -> dict[str, Any]:
    parameters: list[dict[str, Any]] = []
    input_parameters: list[dict[str, Any]] = []
    body_fields = [f for f in plan.fields if f.source in ("input", "payload", "rest")]
    for field in plan.fields:
        where = {"query": "query", "path": "path", "header": "header", "cookie": "cookie"}.get(field.source)
        if where is None and field.source == "input" and field.type.kind == "scalar":
            where = "input"
        if where is None:
            continue
        parameter: dict[str, Any] = {
            "name": field.wire,
            "in": "query" if where == "input" else where,
            "required": field.required or where == "path",
            "schema": field_schema(field),
        }
        if field.doc:
            parameter["description"] = field.doc
            if is_deprecated(field.doc):
                parameter["deprecated"] = True
        if field.type.kind == "list":
            parameter["style"], parameter["explode"] = "form", True
        (input_parameters if where == "input" else parameters).append(parameter)
    body: dict[str, Any] | None = None
    if body_fields:
        if any(f.type.kind == "file" for f in body_fields):
            media = ["multipart/form-data"]
        elif all(_flat(f) for f in body_fields):
            media = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
        else:
            media = ["application/json"]
        if cbor and "application/json" in media:
            media.append("application/cbor")
        body = {
            "schema": {"$ref": REF_PREFIX + schema_key(plan)},
            "media": media,
            "required": any(demanded(f) for f in body_fields),
            "input": [f.wire for f in body_fields if f.source == "input" and f.type.kind == "scalar"],
        }
    doc = plan.doc or ""
    summary, _, description = doc.partition("\n\n")
    piece: dict[str, Any] = {
        "type": plan.key,
        "parameters": parameters,
        "input_parameters": input_parameters,
        "body": body,
        "validation": _validated(plan),
        "rejects": _validated(plan) or any(_can_fail(f) for f in plan.fields),
        "deprecated": is_deprecated(plan.doc),
    }
    if summary.strip():
        piece["summary"] = " ".join(summary.split())
    if description.strip():
        piece["description"] = description.strip()
    return piece


def operation_pieces(
    sites: list[CallSite], tops: dict[type, StructPlan], plans: dict[type, StructPlan], cbor: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per handler (``module:qualname``) its operation piece; per dataclass its component schema."""
    operations: dict[str, Any] = {}
    for site in sites:
        if site.handler is None:
            continue
        key = f"{site.module}:{site.handler}"
        if key not in operations:
            operations[key] = operation_piece(tops[site.cls], cbor)
    schemas: dict[str, Any] = {}
    for cls, plan in plans.items():
        schemas[schema_key(plan)] = struct_schema(plan, body_only=cls in tops)
    return operations, schemas
