"""The OpenAPI 3.1 document of an App, assembled at start from its routes and generated pieces.

``fw generate`` records, per handler that calls ``fw.parse``, the operation's parameters and body
schema; here they are matched to ``app.entries`` (pattern and method come from the route), so
the document always describes the routes the App actually serves.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

import fw.binding.registry as registry
from fw.binding.info import api_info
from fw.routing import Pattern

OPENAPI_PATH = "/openapi.json"
_BODYLESS = {"get", "head", "delete", "options"}
_ANY_METHOD = ("get", "post", "put", "patch", "delete")
_WILDCARD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\.\.\.)?\}")
_PROBLEM = {
    "type": "object",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "field": {"type": "string"},
                    "location": {"enum": ["input", "query", "payload", "path", "header", "cookie"]},
                    "message": {"type": "string"},
                },
                "required": ["field", "location", "message"],
            },
        },
    },
    "required": ["type", "title", "status", "detail", "code"],
}


class _Entry(Protocol):
    @property
    def pattern(self) -> Pattern: ...
    @property
    def handler(self) -> Callable[..., Any]: ...
    @property
    def name(self) -> str | None: ...


class RoutedApp(Protocol):
    """What the document needs of an App: its route entries (structural, so no import of the App)."""

    @property
    def entries(self) -> Sequence[_Entry]: ...


def _handler_key(handler: Any) -> tuple[str, str] | None:
    seen = 0
    while hasattr(handler, "__wrapped__") and seen < 16:
        handler, seen = handler.__wrapped__, seen + 1
    module, qualname = getattr(handler, "__module__", None), getattr(handler, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    return module, qualname


def _problem_response(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def _operation(piece: dict[str, Any], method: str, wildcards: tuple[str, ...]) -> dict[str, Any]:
    operation: dict[str, Any] = {}
    for key in ("summary", "description"):
        if key in piece:
            operation[key] = piece[key]
    if piece["deprecated"]:
        operation["deprecated"] = True
    parameters = [p for p in piece["parameters"] if p["in"] != "path" or p["name"] in wildcards]
    declared = {p["name"] for p in parameters if p["in"] == "path"}
    for name in wildcards:
        if name not in declared:
            parameters.append({"name": name, "in": "path", "required": True, "schema": {"type": "string"}})
    body = piece["body"]
    if method in _BODYLESS:
        parameters.extend(piece["input_parameters"])
    elif body is not None:
        schema = body["schema"]
        operation["requestBody"] = {
            "required": body["required"],
            "content": {media: {"schema": schema} for media in body["media"]},
        }
    if parameters:
        operation["parameters"] = parameters
    responses: dict[str, Any] = {"200": {"description": "OK"}}
    if piece["validation"] or piece.get("rejects", True):
        responses["400"] = _problem_response("The request failed binding or validation")
    if "requestBody" in operation:
        responses["413"] = _problem_response("The request body is over a size limit")
        responses["415"] = _problem_response("The request body has an unsupported media type")
    operation["responses"] = responses
    return operation


def _collect_refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.removeprefix("#/components/schemas/"))
        for value in node.values():
            _collect_refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _collect_refs(value, found)


def _rename_refs(node: Any, names: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {k: _rename_refs(v, names) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.removeprefix("#/components/schemas/") in names:
            out["$ref"] = "#/components/schemas/" + names[ref.removeprefix("#/components/schemas/")]
        return out
    if isinstance(node, list):
        return [_rename_refs(v, names) for v in node]
    return node


def build_document(
    app: RoutedApp,
    info: Mapping[str, str] | None = None,
    pieces: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The OpenAPI 3.1 document for ``app``'s routes whose handlers call ``fw.parse``.

    ``info`` is the project's title, version and description by default (:mod:`fw.binding.info`).
    ``pieces`` (operations, schemas) are the generator's own, when it writes the document
    before the new binder modules exist; by default the pieces the imported binders registered.
    """
    operations: Mapping[str, Any]
    known_schemas: Mapping[str, Any]
    if pieces is None:
        for entry in app.entries:
            key = _handler_key(entry.handler)
            if key is not None:
                registry.load_binders_near(key[0])
        operations, known_schemas = registry.operations, registry.schemas
    else:
        operations, known_schemas = pieces
    paths: dict[str, dict[str, Any]] = {}
    for entry in app.entries:
        key = _handler_key(entry.handler)
        if key is None:
            continue
        piece = operations.get(f"{registry.module_name(key[0])}:{key[1]}")
        if piece is None:
            continue
        path = _WILDCARD.sub(r"{\1}", entry.pattern.path.replace("{$}", ""))
        methods = [entry.pattern.method.lower()] if entry.pattern.method else list(_ANY_METHOD)
        for method in methods:
            operation = _operation(copy.deepcopy(piece), method, entry.pattern.wildcards)
            name = entry.name or key[1].replace(".<locals>.", "_")
            operation["operationId"] = name if len(methods) == 1 else f"{name}_{method}"
            paths.setdefault(path, {})[method] = operation
    used: set[str] = set()
    _collect_refs(paths, used)
    schemas: dict[str, Any] = {}
    pending = sorted(used - {"Problem"})
    while pending:
        name = pending.pop()
        if name in schemas or name not in known_schemas:
            continue
        schemas[name] = known_schemas[name]
        more: set[str] = set()
        _collect_refs(schemas[name], more)
        pending.extend(sorted(more - set(schemas)))
    short: dict[str, str] = {}
    taken: set[str] = {"Problem"}
    for name in sorted(schemas):
        simple = name.rsplit(".", 1)[-1]
        short[name] = simple if simple not in taken else name
        taken.add(short[name])
    components = {short[name]: _rename_refs(schema, short) for name, schema in schemas.items()}
    components["Problem"] = _PROBLEM
    return {
        "openapi": "3.1.0",
        "info": dict(info) if info is not None else api_info(entry.handler for entry in app.entries),
        "paths": _rename_refs(paths, short),
        "components": {"schemas": components},
    }


def openapi_routes(app: RoutedApp) -> list[BaseRoute]:
    """The ``GET /openapi.json`` route; the document is assembled and encoded once, on first request.

    Called when the App is built, it also imports the generated binders next to every handler,
    so the first request never pays for that import (and types declared outside the handler's
    package are registered too).
    """
    for entry in app.entries:
        key = _handler_key(entry.handler)
        if key is not None:
            registry.load_binders_near(key[0])
    encoded: list[bytes] = []

    async def openapi(request: Request) -> Response:
        if not encoded:
            encoded.append(bytes(JSONResponse(build_document(app)).body))
        return Response(encoded[0], media_type="application/json")

    return [Route(OPENAPI_PATH, openapi, methods=["GET"], name="openapi")]
