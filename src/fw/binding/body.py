"""Reading and decoding a request body once, into the shape generated binders consume.

JSON and CBOR bodies become one mapping of typed values; urlencoded and multipart bodies become
flat ``name -> [text, ...]`` maps plus uploaded files. Every decoding failure is a
:class:`fw.BindError` (or a 413/415 problem), never an exception a client could see as a 500.

A JSON or form body is read with Starlette's public ``request.body()``, which keeps it on the
request: a handler may still read the raw bytes, before binding or after. Multipart bodies are
read by :mod:`fw.binding.multipart`.
"""

from __future__ import annotations

import math
from collections.abc import AsyncGenerator, Callable
from typing import Any, Final
from urllib.parse import parse_qsl

import msgspec
from starlette.requests import Request

from fw.binding.limits import BodyTooLarge, limits_of, max_multipart_body_bytes
from fw.binding.multipart import InvalidMultipart, parse_multipart
from fw.binding.types import File
from fw.problems import BindError, FieldError, Problem

NONE: Final = 0
JSON: Final = 1
FORM: Final = 2
MULTIPART: Final = 3
CBOR: Final = 4

#: Most form fields or multipart parts one body may carry.
MAX_FORM_FIELDS: Final = 1000


class UnsupportedMediaType(Problem):
    """415: a body arrived in a media type the binder does not read."""

    status = 415
    code = "unsupported_media_type"
    title = "Unsupported Media Type"


class Body:
    """A decoded body: ``kind`` says how to read ``values``."""

    __slots__ = ("files", "kind", "values")

    def __init__(self, kind: int, values: dict[str, Any], files: dict[str, list[File]] | None = None) -> None:
        self.kind = kind
        self.values = values
        self.files: dict[str, list[File]] = files if files is not None else {}


EMPTY: Final = Body(NONE, {})


def body_error(message: str) -> BindError:
    """A whole-body failure, reported as the pseudo-field ``body``."""
    return BindError([FieldError("body", "payload", message)])


_decode_json = msgspec.json.Decoder().decode


def decode_json(raw: bytes) -> Body:
    """Strict UTF-8 JSON (msgspec's decoder): one object, no NaN/Infinity, no float overflow.

    Duplicate keys: the last one wins. Nesting deeper than the decoder's recursion bound is a
    bind error like any other malformed body.
    """
    try:
        value = _decode_json(raw)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        raise body_error("invalid JSON body") from None
    if type(value) is not dict:
        raise body_error("invalid JSON body")
    return Body(JSON, value)


def decode_form(raw: bytes) -> Body:
    try:
        pairs = parse_qsl(
            raw.decode("utf-8"), keep_blank_values=True, errors="strict", max_num_fields=MAX_FORM_FIELDS
        )
    except ValueError:
        raise body_error("invalid form body") from None
    values: dict[str, list[str]] = {}
    for name, value in pairs:
        values.setdefault(name, []).append(value)
    return Body(FORM, values)


def decode_cbor(raw: bytes) -> Body:
    import cbor2

    try:
        value = cbor2.loads(raw)
    except Exception:  # cbor2 raises several unrelated types for malformed input
        raise body_error("invalid CBOR body") from None
    if type(value) is not dict or not all(type(k) is str for k in value):
        raise body_error("invalid CBOR body")
    for item in value.values():
        if type(item) is float and not math.isfinite(item):
            raise body_error("invalid CBOR body")
    return Body(CBOR, value)


async def _limited(request: Request, limit: int) -> AsyncGenerator[bytes, None]:
    seen = 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > limit:
            raise BodyTooLarge(limit)
        yield chunk


async def read_limited(request: Request, limit: int) -> bytes:
    """The whole body, at most ``limit`` bytes: over it (declared or counted) is a 413 problem."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(limit)
    return b"".join([chunk async for chunk in _limited(request, limit)])


async def decode_multipart(request: Request) -> Body:
    limit = min(max_multipart_body_bytes(), limits_of(request.scope).request)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(limit)
    try:
        parts = await parse_multipart(
            request.headers["content-type"],
            _limited(request, limit),
            max_files=MAX_FORM_FIELDS,
            max_fields=MAX_FORM_FIELDS,
            max_part_size=limit,
        )
    except InvalidMultipart:
        raise body_error("invalid multipart body") from None
    values: dict[str, list[str]] = {}
    files: dict[str, list[File]] = {}
    for name, item in parts:
        if isinstance(item, str):
            values.setdefault(name, []).append(item)
        else:
            files.setdefault(name, []).append(item)
    return Body(MULTIPART, values, files)


async def read_body(request: Request, cbor: bool = False) -> Body:
    """Decode the request body by its media type, once per request; an empty body is :data:`EMPTY`.

    The decoded body is kept in the ASGI scope, so a handler may bind several types from one
    request (a multipart stream can only be read once).
    """
    scope = request.scope
    body: Body | None = scope.get(_SCOPE_KEY)
    if body is None:
        body = scope[_SCOPE_KEY] = await _decode(request, cbor)
    return body


_SCOPE_KEY: Final = "fw.body"


def _media_type(headers: list[tuple[bytes, bytes]]) -> str:
    """The bare, lower-cased media type of the (last) ``Content-Type`` header, or ``""``.

    Both body paths read it here, so the decoded JSON path never sees a body the full path would
    read otherwise.
    """
    kind = b""
    for name, value in headers:
        if name == b"content-type":
            kind = value
    if kind == b"application/json":
        return "application/json"
    return kind.decode("latin-1").partition(";")[0].strip().lower()


def _declares_empty(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(name == b"content-length" and value == b"0" for name, value in headers)


async def _decode(request: Request, cbor: bool) -> Body:
    headers = request.scope["headers"]
    if _declares_empty(headers):
        return EMPTY
    kind = _media_type(headers)
    if kind == "multipart/form-data":
        return await decode_multipart(request)
    if cbor and (kind == "application/cbor" or kind.endswith("+cbor")):
        limits = limits_of(request.scope)
        raw = await read_limited(request, min(limits.cbor, limits.request))
        return decode_cbor(raw) if raw else EMPTY
    raw = await request.body()
    if not raw:
        return EMPTY
    if _is_json(kind):
        return decode_json(raw)
    if kind == "application/x-www-form-urlencoded":
        return decode_form(raw)
    accepted = "application/json, application/x-www-form-urlencoded, multipart/form-data"
    if cbor:
        accepted += ", application/cbor"
    raise UnsupportedMediaType(f"unsupported body media type {kind or '(none)'!r}; send one of: {accepted}")


def _is_json(kind: str) -> bool:
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


async def typed_json(request: Request, decode: Callable[[bytes], Any]) -> Any:
    """The JSON body decoded into a binder's generated msgspec Structs, or ``None``.

    ``None`` (any other media type, an empty body, a malformed body or a value of the wrong
    type) sends the binder down its full path, which decodes the body generically and reports
    every field error.
    """
    if not _is_json(_media_type(request.scope["headers"])):
        return None
    raw = await request.body()
    if not raw:
        return None
    try:
        return decode(raw)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None
