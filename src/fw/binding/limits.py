"""Body limits: the outer ``server.max_request_body`` and ``server.body_timeout``, the CBOR and
the multipart limits.

The outer limits wrap ASGI ``receive`` so they hold for every request, whether or not a handler
binds it: a declared ``Content-Length`` over the limit is refused before anything is read, and a
chunked body is counted as it arrives and cut at the limit, so an oversized body is never
buffered. A body still arriving ``body_timeout`` after the handler first asked for it is cut
too (408, connection closed): a client dripping a body under the size limit cannot hold a
connection and a handler forever. The deadline ends with the body, so a handler that listens
for the disconnect while streaming its answer is never timed out.

The App resolves ``[server]`` once, when it is built, and hands the limits to the middleware,
which records them in the request scope for the body decoders: nothing here reads the global
configuration while serving.
"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fw.problems import Problem
from fw.watchdog import Watchdog

_DEFAULT_MULTIPART = 1024 * 1024
DEFAULT_MAX_REQUEST_BODY = 10 * 1024 * 1024
DEFAULT_CBOR_MAX_BODY = 1024 * 1024
DEFAULT_BODY_TIMEOUT = 30.0
_max_multipart = _DEFAULT_MULTIPART


class BodyTooLarge(Problem):
    """413: the body is over a limit; nothing was bound."""

    status = 413
    code = "request_too_large"
    title = "Request body too large"

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body exceeds {limit} bytes")
        self.limit = limit


class BodyTimedOut(Problem):
    """408: the body did not arrive within ``server.body_timeout``; the connection is closed."""

    status = 408
    code = "request_timeout"
    title = "Request body too slow"

    def __init__(self, timeout: float) -> None:
        # Connection: close makes the server drop the connection instead of reading on.
        super().__init__(f"request body not received within {timeout:g} s", headers={"Connection": "close"})
        self.timeout = timeout


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
    """The limits request bodies are read under (``server.max_request_body``, ``cbor_max_body``,
    ``body_timeout`` in seconds, 0 for none)."""

    request: int = DEFAULT_MAX_REQUEST_BODY
    cbor: int = DEFAULT_CBOR_MAX_BODY
    timeout: float = DEFAULT_BODY_TIMEOUT
    #: What bounds a body's reads by ``timeout`` (one timer for every body in flight,
    #: :mod:`fw.watchdog`); ``None`` when there is no timeout.
    watchdog: Watchdog | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.timeout > 0:
            object.__setattr__(self, "watchdog", Watchdog(self.timeout))

    @classmethod
    def of(
        cls, max_request_body: int, cbor_max_body: int, body_timeout: float = DEFAULT_BODY_TIMEOUT
    ) -> BodyLimits:
        """The limits as configured; a size of zero or less (refused at startup) keeps the default."""
        return cls(
            max_request_body if max_request_body > 0 else DEFAULT_MAX_REQUEST_BODY,
            cbor_max_body if cbor_max_body > 0 else DEFAULT_CBOR_MAX_BODY,
            max(body_timeout, 0.0),
        )


DEFAULT_LIMITS = BodyLimits()
#: Versions whose requests carry a body only with a Content-Length or Transfer-Encoding header.
FRAMED_VERSIONS = ("1.1", "1.0")
#: Methods whose requests are taken as bodyless when they declare no body, even from an ASGI
#: server that would not pass the framing headers on (other methods keep the counting receive).
BODYLESS_METHODS = ("GET", "HEAD")
#: Where :class:`BodyLimitMiddleware` leaves the limits for the body decoders.
SCOPE_KEY = "fw.body_limits"


def limits_of(scope: MutableMapping[str, Any]) -> BodyLimits:
    """The limits of this request (the defaults for a request that bypassed the middleware)."""
    limits = scope.get(SCOPE_KEY)
    return limits if isinstance(limits, BodyLimits) else DEFAULT_LIMITS


def framing(scope: Scope) -> tuple[int | None, bool]:
    """(declared Content-Length, whether any body framing header is present), in one pass."""
    declared: int | None = None
    length_seen = framed = False
    for name, value in scope["headers"]:
        if name == b"content-length":
            if not length_seen:  # the first one counts, as it always has
                length_seen = True
                try:
                    declared = int(value)
                except ValueError:
                    declared = None
            framed = True
        elif name == b"transfer-encoding":
            framed = True
    return declared, framed


def guarded_receive(scope: Scope, receive: Receive, limits: BodyLimits) -> Receive | None:
    """The ``receive`` an HTTP request is read through under ``limits``, or ``None`` to answer 413.

    Records the limits in the scope for the body decoders. ``None`` means the declared
    ``Content-Length`` is already over the limit: answer with :func:`refuse_too_large` and read
    nothing. A GET or HEAD that declares no body keeps its own ``receive``; anything else reads
    through a ``receive`` that counts the bytes and raises :class:`BodyTooLarge` at the limit.
    """
    scope[SCOPE_KEY] = limits
    declared, framed = framing(scope)
    if not framed and bodyless(scope):
        # An HTTP/1.x GET or HEAD without Content-Length or Transfer-Encoding has no body
        # (RFC 9112 6.3): nothing can arrive to count, so ``receive`` is passed on as it is.
        return receive
    return counting_receive(receive, limits, declared)


def bodyless(scope: Scope) -> bool:
    """Whether a request that sent no framing header has no body: an HTTP/1.x GET or HEAD."""
    return scope["method"] in BODYLESS_METHODS and scope.get("http_version") in FRAMED_VERSIONS


def counting_receive(receive: Receive, limits: BodyLimits, declared: int | None) -> Receive | None:
    """``receive`` counting the body's bytes against ``limits`` (``None``: ``declared`` is already over)."""
    limit = limits.request
    if declared is not None and declared > limit:
        return None
    seen = 0
    timeout, watchdog = limits.timeout, limits.watchdog
    deadline: float | None = None
    complete = False

    async def limited_receive() -> Message:
        nonlocal seen, deadline, complete
        if complete or watchdog is None:
            message = await receive()
        else:
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + timeout
            try:
                with watchdog.until(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyTimedOut(timeout) from None
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
            complete = not message.get("more_body", False)
        else:
            complete = True  # disconnected: nothing more will arrive
        return message

    return limited_receive


async def refuse_too_large(limits: BodyLimits, send: Send) -> None:
    """The 413 for a request whose declared length is over ``limits`` (nothing was read)."""
    await _send_problem(BodyTooLarge(limits.request), send)


class BodyLimitMiddleware:
    """Enforce ``server.max_request_body`` on every HTTP request, as a middleware.

    An :class:`fw.App` applies the same rule itself (:func:`guarded_receive`) before its
    middleware stack, saving a layer on every request; this class is for other ASGI apps.
    """

    def __init__(self, app: ASGIApp, limits: BodyLimits = DEFAULT_LIMITS) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        guarded = guarded_receive(scope, receive, self.limits)
        if guarded is None:
            await refuse_too_large(self.limits, send)
            return
        await self.app(scope, guarded, send)


async def _send_problem(problem: Problem, send: Send) -> None:
    response = problem.response()
    await send(
        {"type": "http.response.start", "status": response.status_code, "headers": response.raw_headers}
    )
    await send({"type": "http.response.body", "body": response.body})
