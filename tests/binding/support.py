"""Build a Starlette request by hand and bind it, without any HTTP server in between."""

from __future__ import annotations

import json as jsonlib
from collections.abc import Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx2
from starlette.requests import Request
from starlette.types import Message

import fw
from fw.binding.limits import SCOPE_KEY, BodyLimits

T = TypeVar("T")


def make_request(
    *,
    method: str = "POST",
    query: str | dict[str, Any] = "",
    headers: Sequence[tuple[str, str]] = (),
    path_params: dict[str, str] | None = None,
    body: bytes = b"",
    content_type: str | None = None,
    json: Any = None,
    form: dict[str, Any] | None = None,
    files: dict[str, Any] | None = None,
    limits: BodyLimits | None = None,
) -> Request:
    header_list = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    if json is not None:
        body, content_type = jsonlib.dumps(json).encode(), "application/json"
    elif files is not None:
        built = httpx2.Request("POST", "http://test/", data=form or {}, files=files)
        body = built.read()
        content_type = built.headers["content-type"]
    elif form is not None:
        body, content_type = urlencode(form, doseq=True).encode(), "application/x-www-form-urlencoded"
    if content_type is not None:
        header_list.append((b"content-type", content_type.encode()))
    if body:
        header_list.append((b"content-length", str(len(body)).encode()))
    query_string = urlencode(query, doseq=True) if isinstance(query, dict) else query
    scope = {
        "type": "http",
        "method": method,
        "path": "/",
        "query_string": query_string.encode(),
        "headers": header_list,
        "path_params": path_params or {},
    }
    if limits is not None:
        scope[SCOPE_KEY] = limits  # as the App's body-limit middleware records them
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(scope, receive)


async def bind(cls: type[T], **request: Any) -> T:
    return await fw.parse(cls, make_request(**request))


async def errors_of(cls: type[Any], **request: Any) -> list[tuple[str, str, str]]:
    """The (field, location, message) triples fw.parse rejects the request with."""
    try:
        await bind(cls, **request)
    except fw.BindError as error:
        return [(e.field, e.location, e.message) for e in error.errors]
    raise AssertionError("the request was accepted")
