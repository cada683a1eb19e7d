"""What every passkey endpoint demands of a request before any ceremony state is touched.

POST only (the routes say so: other methods 405), ``Origin`` one of ``auth.passkey.origins``
(403: a page of another origin cannot drive a ceremony), a body of ``application/json`` (415)
of at most 64 KiB (413) that parses (400). Every answer, refusal included, carries
``Cache-Control: no-store``: options, tickets and landings belong to one browser, once.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.webauthn import PasskeyMalformed
from fw.problems import Problem

#: The largest body any passkey endpoint reads (a packed attestation is a few KiB).
MAX_BODY = 64 * 1024

Endpoint = Callable[[Request], Awaitable[Response]]


def passkey_endpoint(origins: tuple[str, ...]) -> Callable[[Endpoint], Endpoint]:
    """Wrap an endpoint: the origin check first, ``no-store`` on every answer."""

    def wrap(endpoint: Endpoint) -> Endpoint:
        @wraps(endpoint)
        async def guarded(request: Request) -> Response:
            try:
                origin = request.headers.get("origin")
                if origin not in origins:
                    raise refused_origin(origin, origins)
                response = await endpoint(request)
            except Problem as problem:
                response = problem.response()
            response.headers["cache-control"] = "no-store"
            return response

        return guarded

    return wrap


def refused_origin(origin: str | None, origins: tuple[str, ...]) -> Problem:
    """403 naming the origin to use: WebAuthn runs only on an origin of the relying party, so a
    page opened at http://127.0.0.1:8000 must be opened at http://localhost:8000 instead."""
    shown = origin if origin and len(origin) <= 200 else "this page's origin"
    where = " or ".join(origins)
    return Problem(
        f"{shown} may not run passkey ceremonies: open this site at {where} (auth.passkey.origins)",
        status=403,
        code="cross_origin",
    )


async def read_json(request: Request, *, optional: bool = False) -> Any:
    """The decoded JSON body; ``None`` for an absent body when ``optional`` (a ``begin``)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise _too_large()
    if not body and optional:
        return None
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        raise Problem("send the body as application/json", status=415, code="unsupported_media_type")
    try:
        return json.loads(bytes(body).decode("utf-8"))
    except (ValueError, RecursionError):
        raise PasskeyMalformed("The body is not UTF-8 JSON.") from None


async def read_empty(request: Request) -> None:
    """A ``begin`` body: nothing, or ``{}``."""
    body = await read_json(request, optional=True)
    if body is not None and body != {}:
        raise PasskeyMalformed("This request takes no members; send {} or nothing.")


def _too_large() -> Problem:
    return Problem(f"the body is larger than {MAX_BODY} bytes", status=413, code="too_large")
