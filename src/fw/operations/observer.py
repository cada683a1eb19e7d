"""The one ASGI wrapper that observes every request: request ID, timing, status, hooks.

The access log (:mod:`fw.operations.accesslog`), the metrics and the tracing all want the same
few facts about a request: when it started, how long it took, the status it got, and its route
and auth decision (which the App records in the scope while serving it). Rather than one wrapper
each, the App installs :class:`RequestObserver` outermost once any of them is on, and it hands
each a :class:`RequestHook`: one coroutine layer and one ``send`` wrapper per request, however
many observers listen.

The request ID comes from the ``X-Request-Id`` header when it is 1 to 128 characters of
``[A-Za-z0-9._-]`` (what a proxy or a calling service sets), otherwise the observer makes one.
It is kept in ``scope["fw.request_id"]``, sent back on the response, added to every problem
document fw answers (a ``request_id`` member, so a person reporting an error can quote it), and
current for the log lines written while the request is served (:func:`current_request_id`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from random import getrandbits as _random_bits
from typing import Protocol

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "REQUEST_ID_HEADER",
    "REQUEST_ID_KEY",
    "RequestHook",
    "RequestObserver",
    "build_observer",
    "current_request_id",
    "request_id_from",
]

#: Where the observer keeps the request ID in the ASGI scope.
REQUEST_ID_KEY = "fw.request_id"
#: The header a request ID is taken from and echoed on (lower case, as ASGI carries names).
REQUEST_ID_HEADER = b"x-request-id"
#: What a request ID taken from a request may look like (anything else is replaced).
_ACCEPTED = re.compile(rb"[A-Za-z0-9._-]{1,128}")
_PROBLEM_TYPE = b"application/problem+json"

_current: ContextVar[str | None] = ContextVar("fw.request_id", default=None)
logger = logging.getLogger("fw.operations")


def current_request_id() -> str | None:
    """The ID of the request being served in this task (``None`` outside one, or with no observer)."""
    return _current.get()


def request_id_from(value: bytes) -> str | None:
    """The request ID a request's ``X-Request-Id`` value names, or ``None`` when it is not one."""
    return value.decode("ascii") if _ACCEPTED.fullmatch(value) else None


def _new_request_id() -> str:
    """32 random hex digits: unique enough to find one request in any log. An identifier, not a
    secret, so from ``random`` (reseeded in every forked worker), at a fraction of a system call."""
    return f"{_random_bits(128):032x}"


class RequestHook(Protocol):
    """One observer of requests (access log, metrics, tracing).

    ``start`` runs before the request is served and returns whatever ``finish`` needs back;
    ``finish`` runs once the request is over, with the status (500 when the app raised before a
    response started) and the duration in seconds. Both run in the request's own task, so a hook
    may attach a context variable in ``start`` and detach it in ``finish``. A hook that raises
    is logged and does not change the answer.
    """

    def start(self, scope: Scope) -> object: ...

    def finish(self, state: object, scope: Scope, status: int, duration: float) -> None: ...


class RequestObserver:
    """Request ID, timing and status of every HTTP request, handed to the hooks.

    Requests marked ``scope["fw.untracked"]`` before they arrive here (or whose path is one of
    ``untracked``, the health endpoints) get their request ID but no hook: they are not traffic.
    A request marked while it is served (by the endpoint itself) still gets ``finish`` for every
    ``start`` made, so a hook can release what it holds; each hook then skips it itself.
    Lifespan and WebSocket scopes pass through untouched.
    """

    __slots__ = ("app", "hooks", "untracked")

    def __init__(
        self, app: ASGIApp, hooks: Sequence[RequestHook] = (), untracked: Iterable[str] = ()
    ) -> None:
        self.app = app
        self.hooks = tuple(hooks)
        self.untracked = frozenset(untracked)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = None
        for name, value in scope["headers"]:
            if name == REQUEST_ID_HEADER:
                request_id = request_id_from(value)
                break
        if request_id is None:
            request_id = _new_request_id()
        scope[REQUEST_ID_KEY] = request_id
        echoed = (REQUEST_ID_HEADER, request_id.encode("ascii"))
        status = 0
        held: Message | None = None  # a problem document's start, sent with its amended body
        body = b""

        async def observed(message: Message) -> None:
            nonlocal status, held, body
            if held is None:
                if message["type"] == "http.response.start":
                    status = message["status"]
                    headers = [*message.get("headers", ()), echoed]
                    message = {**message, "headers": headers}
                    if status >= 400 and scope["method"] != "HEAD" and _is_problem(headers):
                        held = message
                        return
                await send(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            body += message.get("body", b"")
            if message.get("more_body", False):
                return
            if body.endswith(b"}") and b'"request_id"' not in body:
                body = body[:-1] + b',"request_id":"' + echoed[1] + b'"}'
            headers = [
                (name, str(len(body)).encode("latin-1"))
                if name.lower() == b"content-length"
                else (name, value)
                for name, value in held["headers"]
            ]
            await send({**held, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        token = _current.set(request_id)
        hooks = self.hooks
        if not hooks or scope.get("fw.untracked") or scope["path"] in self.untracked:
            try:
                await self.app(scope, receive, observed)
            finally:
                _current.reset(token)
            return
        states = [hook.start(scope) for hook in hooks]
        started = time.perf_counter()
        try:
            await self.app(scope, receive, observed)
        except BaseException:
            if status == 0:
                status = 500
            raise
        finally:
            duration = time.perf_counter() - started
            if status == 0:  # the app returned without answering: the server answers 500
                status = 500
            for hook, state in zip(hooks, states, strict=True):
                try:
                    hook.finish(state, scope, status, duration)
                except Exception:
                    logger.exception("request hook %s failed", type(hook).__name__)
            _current.reset(token)


def _is_problem(headers: list[tuple[bytes, bytes]]) -> bool:
    for name, value in headers:
        if name.lower() == b"content-type":
            return value.partition(b";")[0].strip().lower() == _PROBLEM_TYPE
    return False


def build_observer(
    app: ASGIApp, hooks: Sequence[RequestHook | None], untracked: Iterable[str] = ()
) -> ASGIApp:
    """``app`` wrapped in one :class:`RequestObserver` for the hooks given (``None`` entries,
    features turned off, are left out). With no hook at all the request ID is still taken,
    echoed and put in problem documents."""
    return RequestObserver(app, [hook for hook in hooks if hook is not None], untracked)
