"""The OpenAPI 3.1 document of an App, assembled at start from its routes and generated pieces.

``fw generate`` records, per handler that calls ``fw.parse``, the operation's parameters and body
schema; here they are matched to ``app.entries`` (pattern and method come from the route), so
the document always describes the routes the App actually serves. A route whose handler binds
nothing is listed too, with its path parameters and responses. Security comes from the running
extensions (:class:`fw.extension.OpenApiSecurity`): each declares its schemes and which paths it
protects, so ``/openapi.json`` follows the configuration the App started with.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response

import fw.binding.registry as registry
from fw.binding.info import api_info
from fw.core.routes import BaseRoute, Route
from fw.extension import OpenApiSecurity
from fw.responses import JSONResponse
from fw.routing import DeclaredRoute

OPENAPI_PATH = "/openapi.json"
_BODYLESS = {"get", "head", "delete", "options"}
_ANY_METHOD = ("get", "post", "put", "patch", "delete")
_WILDCARD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\.\.\.)?\}")
#: What an unbound route documents: no parameters of its own beyond the path, no body.
_UNBOUND: dict[str, Any] = {
    "parameters": [],
    "input_parameters": [],
    "body": None,
    "deprecated": False,
    "validation": False,
    "rejects": False,
}
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


class RoutedApp(Protocol):
    """What the document needs of an App: its route entries (structural, so no import of the App)."""

    @property
    def entries(self) -> Sequence[DeclaredRoute]: ...


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


def _path_name(method: str, path: str) -> str:
    """An operation ID for a handler with no importable name (a callable object, a partial)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{method}_{path}").strip("_")


def concrete_path(path: str) -> str:
    """A request path the route pattern ``path`` matches, each wildcard filled with one segment
    (what a path-based guard is asked about the whole route)."""
    return _WILDCARD.sub("x", path.replace("{$}", ""))


def _secure(operation: dict[str, Any], method: str, path: str, security: Sequence[OpenApiSecurity]) -> None:
    """Apply the first guard that protects ``path``: its requirement and its responses."""
    for guard in security:
        if guard.protects(concrete_path(path)):
            operation["security"] = [dict(alternative) for alternative in guard.requirement]
            for status, description in guard.responses(method).items():
                answer = _redirect(description) if status.startswith("3") else _problem_response(description)
                operation["responses"].setdefault(status, answer)
            return


def _redirect(description: str) -> dict[str, Any]:
    return {"description": description, "headers": {"Location": {"schema": {"type": "string"}}}}


def build_document(
    app: RoutedApp,
    info: Mapping[str, str] | None = None,
    pieces: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
    security: Sequence[OpenApiSecurity] = (),
) -> dict[str, Any]:
    """The OpenAPI 3.1 document for every one of ``app``'s routes.

    ``info`` is the project's title, version and description by default (:mod:`fw.binding.info`).
    ``pieces`` (operations, schemas) are the generator's own, when it writes the document
    before the new binder modules exist; by default the pieces the imported binders registered.
    ``security`` is what the running extensions guard (none: the document of the defaults).
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
    operation_ids: set[str] = set()
    for entry in app.entries:
        key = _handler_key(entry.handler)
        found = operations.get(f"{registry.module_name(key[0])}:{key[1]}") if key is not None else None
        piece = found if found is not None else _UNBOUND
        path = _WILDCARD.sub(r"{\1}", entry.pattern.path.replace("{$}", ""))
        methods = [entry.pattern.method.lower()] if entry.pattern.method else list(_ANY_METHOD)
        for method in methods:
            operation = _operation(copy.deepcopy(piece), method, entry.pattern.wildcards)
            _secure(operation, method, entry.pattern.path, security)
            name = entry.name or (
                key[1].replace(".<locals>.", "_") if key is not None else _path_name(method, path)
            )
            operation_id = name if len(methods) == 1 else f"{name}_{method}"
            if operation_id in operation_ids:  # one handler behind several routes: IDs stay unique
                operation_id = f"{operation_id}_{_path_name(method, path)}"
            operation_ids.add(operation_id)
            operation["operationId"] = operation_id
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
    declared: dict[str, Any] = {"schemas": components}
    schemes = {name: dict(scheme) for guard in security for name, scheme in guard.schemes.items()}
    if schemes:
        declared["securitySchemes"] = schemes
    return {
        "openapi": "3.1.0",
        "info": dict(info) if info is not None else api_info(entry.handler for entry in app.entries),
        "paths": _rename_refs(paths, short),
        "components": declared,
    }


def openapi_routes(app: RoutedApp, security: Sequence[OpenApiSecurity] = ()) -> list[BaseRoute]:
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
            encoded.append(bytes(JSONResponse(build_document(app, security=security)).body))
        return Response(encoded[0], media_type="application/json")

    return [Route(OPENAPI_PATH, openapi, methods=["GET"], name="openapi")]
