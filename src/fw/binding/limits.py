"""Body size limits: the outer ``server.max_request_body``, the CBOR and the multipart limits.

The outer limit wraps ASGI ``receive`` so it holds for every request, whether or not a handler
binds it: a declared ``Content-Length`` over the limit is refused before anything is read, and a
chunked body is counted as it arrives and cut at the limit, so an oversized body is never
buffered.

The App resolves ``[server]`` once, when it is built, and hands the limits to the middleware,
which records them in the request scope for the body decoders: nothing here reads the global
configuration while serving.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fw.problems import Problem

_DEFAULT_MULTIPART = 1024 * 1024
DEFAULT_MAX_REQUEST_BODY = 10 * 1024 * 1024
DEFAULT_CBOR_MAX_BODY = 1024 * 1024
_max_multipart = _DEFAULT_MULTIPART


class BodyTooLarge(Problem):
    """413: the body is over a limit; nothing was bound."""

    status = 413
    code = "request_too_large"
    title = "Request body too large"

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body exceeds {limit} bytes")
        self.limit = limit


def set_max_multipart_body_bytes(limit: int) -> None:
    """Set the multipart body limit (default 1 MiB); ``server.max_request_body`` still caps it."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise ValueError(f"multipart body limit must be a positive number of bytes, got {limit!r}")
    global _max_multipart
    _max_multipart = limit


def max_multipart_body_bytes() -> int:
    return _max_multipart


@dataclass(frozen=True, slots=True)
class BodyLimits:
    """The byte limits request bodies are read under (``server.max_request_body``, ``cbor_max_body``)."""

    request: int = DEFAULT_MAX_REQUEST_BODY
    cbor: int = DEFAULT_CBOR_MAX_BODY

    @classmethod
    def of(cls, max_request_body: int, cbor_max_body: int) -> BodyLimits:
        """The limits as configured; zero or less (refused at startup) keeps the default."""
        return cls(
            max_request_body if max_request_body > 0 else DEFAULT_MAX_REQUEST_BODY,
            cbor_max_body if cbor_max_body > 0 else DEFAULT_CBOR_MAX_BODY,
        )


DEFAULT_LIMITS = BodyLimits()
#: Where :class:`BodyLimitMiddleware` leaves the limits for the body decoders.
SCOPE_KEY = "fw.body_limits"


def limits_of(scope: MutableMapping[str, Any]) -> BodyLimits:
    """The limits of this request (the defaults for a request that bypassed the middleware)."""
    limits = scope.get(SCOPE_KEY)
    return limits if isinstance(limits, BodyLimits) else DEFAULT_LIMITS


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodyLimitMiddleware:
    """Enforce ``server.max_request_body`` on every HTTP request (outermost fw middleware)."""

    def __init__(self, app: ASGIApp, limits: BodyLimits = DEFAULT_LIMITS) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope[SCOPE_KEY] = self.limits
        limit = self.limits.request
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await _send_problem(BodyTooLarge(limit), send)
            return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, limited_receive, send)


async def _send_problem(problem: Problem, send: Send) -> None:
    response = problem.response()
    await send(
        {"type": "http.response.start", "status": response.status_code, "headers": response.raw_headers}
    )
    await send({"type": "http.response.body", "body": response.body})
