"""The one way fw asks an issuer for JSON: bounded, never redirected, failures named.

Metadata, key sets, token and userinfo answers are small documents. Reading them in chunks up
to a limit means a hostile or broken endpoint cannot make the application buffer an unbounded
answer, and refusing redirects means an answer never comes from somewhere the issuer's URL did
not name. Timeouts belong to the ``httpx2.AsyncClient`` the caller passes in.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx2

from fw.auth.tokens.errors import UnexpectedAnswer, Unreachable
from fw.operations.events import provider_call

#: Metadata and JWKS documents are small; anything bigger is refused unread.
MAX_METADATA_BYTES = 512 * 1024
_OK = frozenset({200})


@dataclass(frozen=True, slots=True)
class Answer:
    """An endpoint's status and body, read in full and within the limit."""

    status: int
    content: bytes
    #: The answer's headers (names lower-cased), for protocols that put facts there (rate limits).
    headers: Mapping[str, str] = field(default_factory=dict)


async def fetch_bounded(
    http: httpx2.AsyncClient,
    method: str,
    url: str,
    *,
    limit: int = MAX_METADATA_BYTES,
    expect: Container[int] | None = _OK,
    headers: Mapping[str, str] | None = None,
    data: Mapping[str, str] | None = None,
    auth: httpx2.BasicAuth | None = None,
    endpoint: str = "other",
) -> Answer:
    """Send one request and read its answer, at most ``limit`` bytes.

    A redirect, a status outside ``expect`` (``None``: any status, for protocols that put
    their errors in the body) and an oversized body are :class:`UnexpectedAnswer`; no answer at
    all is :class:`Unreachable`. ``endpoint`` names the call for the metrics and traces
    (``token``, ``jwks``...; :func:`fw.operations.events.provider_call`).
    """
    try:
        async with (
            provider_call(url, endpoint, method) as call,
            http.stream(
                method,
                url,
                headers={"Accept": "application/json", **(headers or {}), **call.headers},
                data=data,
                auth=auth,
                follow_redirects=False,
            ) as response,
        ):
            status = response.status_code
            call.answered(status)
            headers = {name.lower(): value for name, value in response.headers.items()}
            if response.is_redirect:
                raise UnexpectedAnswer(
                    f"{url} answered a redirect (HTTP {status}); fw does not follow it", status
                )
            if expect is not None and status not in expect:
                raise UnexpectedAnswer(f"{url} answered HTTP {status}", status)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise UnexpectedAnswer(f"{url} answered more than {limit} bytes", status)
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > limit:
                    raise UnexpectedAnswer(f"{url} answered more than {limit} bytes", status)
    except httpx2.HTTPError as error:
        raise Unreachable(url, error) from None
    return Answer(status, bytes(body), headers)


async def fetch_json(
    http: httpx2.AsyncClient, url: str, *, limit: int = MAX_METADATA_BYTES, endpoint: str = ""
) -> dict[str, Any]:
    """GET a JSON object answered with HTTP 200; anything else is a :class:`DiscoveryError` subclass.

    ``endpoint`` (for the metrics) defaults to ``discovery`` for a ``/.well-known/`` URL."""
    endpoint = endpoint or ("discovery" if "/.well-known/" in url else "other")
    answer = await fetch_bounded(http, "GET", url, limit=limit, endpoint=endpoint)
    try:
        data = json.loads(answer.content)
    except ValueError:
        raise UnexpectedAnswer(f"{url} did not answer JSON", answer.status) from None
    if not isinstance(data, dict):
        raise UnexpectedAnswer(f"{url} did not answer a JSON object", answer.status)
    return data
