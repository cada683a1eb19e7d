"""``fw.auth.ensure`` (pages) and ``fw.auth.ensure_api`` (APIs): a handler runs only when the
session's proof is recent enough for the requirement it is guarded by.

Anonymous requests get what path protection gives them. A signed-in request whose proof is too
old is sent to re-prove: a page by a 303 to ``{login_path}?max_age=<seconds>&next=<path>``, an
API by a 401 problem with code ``step_up_required`` (its ``login`` member is that same URL).
Only a safe method can be resumed after the provider's redirect, so the ``next`` of a POST is
the page it came from (a same-origin ``Referer``) or ``post_login_path``.

A zero-width window is met only by redeeming the grant its step-up left (:mod:`.grants`), and
only for the operation it was asked for: the login URL of a zero window names this guard and
the request's method and path (``operation=``), and the grant is kept under that name, so a
grant obtained at one guarded route never satisfies another. A positive window is met by the
session's proof time (``max_age``) or confirmation time (``confirmed``).
In a mode that cannot ask for a re-proof (``oauth_only``) a confirmation or a zero window
answers 503 and logs the mode. An unknown policy name refuses the App's start when a decorated
route names it (:func:`check_routes`), and answers 503 otherwise.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar, cast, overload
from urllib.parse import quote, urlencode, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.assurance import grants
from fw.auth.assurance.context import AssuranceContext, context_of, session_of
from fw.auth.assurance.policies import POLICY_KEY, Policies
from fw.auth.assurance.requirements import Requirement, Window
from fw.auth.assurance.stepup import CLOCK_SKEW, MAX_AGE_PARAM, OPERATION_PARAM
from fw.auth.browser.anonymous import refuse_anonymous
from fw.auth.browser.redirects import safe_return_path
from fw.auth.sessions.manager import SessionSummary
from fw.auth.stores.errors import StoreUnavailable
from fw.errors import StartupError
from fw.problems import Problem

logger = logging.getLogger("fw.auth")

#: A request handler as fw routes take it (async or plain).
Handler = Callable[[Request], Awaitable[Response]] | Callable[[Request], Response]
HandlerT = TypeVar("HandlerT", bound=Handler)

#: The attribute a guarded handler carries, so the App's start can check its policy name.
REQUIREMENT_ATTRIBUTE = "__fw_assurance__"
_SAFE_METHODS = frozenset({"GET", "HEAD"})


class StepUpRequired(Problem):
    """401 ``step_up_required``: the API caller must send its user to ``login`` first."""

    def __init__(self, window: Window, login: str) -> None:
        super().__init__(
            f"this operation needs a proof of identity at most {window.seconds}s old"
            + (" that was asked for" if window.confirm else ""),
            status=401,
            code="step_up_required",
            title="Step-up required",
        )
        self.max_age = window.seconds
        self.login = login

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "max_age": self.max_age, "login": self.login}


@overload
def ensure(handler: Requirement, requirement: None = None) -> Callable[[HandlerT], HandlerT]: ...
@overload
def ensure(handler: HandlerT, requirement: Requirement) -> HandlerT: ...
def ensure(handler: Any, requirement: Requirement | None = None) -> Any:
    """Guard a page handler: ``ensure(handler, requirement)``, or ``@ensure(requirement)``."""
    return _guard(handler, requirement, api=False)


@overload
def ensure_api(handler: Requirement, requirement: None = None) -> Callable[[HandlerT], HandlerT]: ...
@overload
def ensure_api(handler: HandlerT, requirement: Requirement) -> HandlerT: ...
def ensure_api(handler: Any, requirement: Requirement | None = None) -> Any:
    """Guard an API handler: unmet answers 401 ``step_up_required`` instead of a redirect."""
    return _guard(handler, requirement, api=True)


def _guard(handler: Any, requirement: Requirement | None, *, api: bool) -> Any:
    name = "ensure_api" if api else "ensure"
    if requirement is None:
        if not isinstance(handler, Requirement):
            raise TypeError(
                f"fw.auth.{name} takes a requirement (fw.auth.max_age, confirmed or policy), "
                f"not {type(handler).__name__}"
            )
        wanted = handler
        return lambda inner: _wrap(inner, wanted, api)
    if not isinstance(requirement, Requirement):
        raise TypeError(f"fw.auth.{name}: the second argument must be a requirement (fw.auth.max_age, ...)")
    if not callable(handler):
        raise TypeError(f"fw.auth.{name}: the first argument must be a handler")
    return _wrap(handler, requirement, api)


def _wrap(handler: HandlerT, requirement: Requirement, api: bool) -> HandlerT:
    if not callable(handler):
        raise TypeError("an assurance guard decorates a handler")
    asynchronous = inspect.iscoroutinefunction(handler)

    @functools.wraps(handler)
    async def guarded(request: Request) -> Response:
        denial = await check(request, requirement, api=api)
        if denial is not None:
            return denial
        if asynchronous:
            return await cast(Callable[[Request], Awaitable[Response]], handler)(request)
        result = await run_in_threadpool(handler, request)
        if inspect.isawaitable(result):
            return cast(Response, await result)
        return cast(Response, result)

    setattr(guarded, REQUIREMENT_ATTRIBUTE, requirement)
    return cast(HandlerT, guarded)


async def check(request: Request, requirement: Requirement, *, api: bool) -> Response | None:
    """``None`` when the request may proceed, else the answer it gets instead."""
    context = context_of(request)
    if context is None:
        logger.error(
            "%s guards %s but no browser sign-in mode runs (auth.enabled, auth.mode)",
            requirement.describe(),
            request.url.path,
        )
        return _unavailable("this operation needs a browser sign-in mode to prove who is asking")
    window = context.policies.resolve(requirement)
    if window is None:
        logger.error(
            "%s guards %s but [[auth.assurance.policy]] has no such entry (configured: %s)",
            requirement.describe(),
            request.url.path,
            ", ".join(context.policies.names()) or "none",
        )
        return _unavailable(f"the assurance policy {requirement.name!r} is not configured")
    active = session_of(request)
    if active is None:
        return refuse_anonymous(request, context.login_path, context.unauthenticated)
    if (window.confirm or window.once) and not context.reproof:
        logger.error(
            "%s on %s cannot be honoured in auth.mode = %s: its provider cannot be asked for a re-proof",
            window.describe(),
            request.url.path,
            context.mode,
        )
        return _unavailable(f"confirmation is not available in {context.mode}")
    operation = operation_of(request, requirement, api=api) if window.once else ""
    try:
        met = await _met(window, active.summary, context, operation)
    except StoreUnavailable as error:
        logger.error("ceremony store unavailable while redeeming a step-up: %s", error)
        return Problem(
            "the ceremony store cannot answer right now", status=503, code="unavailable"
        ).response()
    if met:
        return None
    login = _login_url(request, window, context, operation)
    if api:
        return StepUpRequired(window, login).response()
    return RedirectResponse(login, status_code=303)


def operation_of(request: Request, requirement: Requirement, *, api: bool) -> str:
    """The operation a zero window's grant is bound to: this guard on this method and path."""
    guard = f"{'ensure_api' if api else 'ensure'}({requirement.describe()})"
    method = "GET" if request.method == "HEAD" else request.method  # one route answers both
    return grants.operation_id(guard, method, request.url.path)


async def _met(window: Window, summary: SessionSummary, context: AssuranceContext, operation: str) -> bool:
    if window.once:
        # Elapsed time never satisfies a zero window: only the one grant its step-up left for
        # this very operation.
        return await grants.redeem(context.ceremonies(), summary.grant, summary.account_id, operation)
    proved = summary.confirmed_at if window.confirm else summary.auth_time
    if proved is None:
        return False
    age = time.time() - proved
    return -CLOCK_SKEW <= age <= window.seconds


def _login_url(request: Request, window: Window, context: AssuranceContext, operation: str) -> str:
    params = {MAX_AGE_PARAM: str(window.seconds), "next": _resume_target(request, context)}
    if operation:
        params[OPERATION_PARAM] = operation
    return f"{context.login_path}?{urlencode(params, quote_via=quote)}"


def _resume_target(request: Request, context: AssuranceContext) -> str:
    """Where the browser resumes after the step-up: this page, or for an unsafe method a safe one."""
    if request.method in _SAFE_METHODS:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return safe_return_path(target) or context.post_login_path
    referer = request.headers.get("referer", "")
    try:
        parts = urlsplit(referer)
    except ValueError:
        return context.post_login_path
    same_origin = parts.scheme == request.url.scheme and parts.netloc == request.url.netloc
    if referer and same_origin:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if path != request.url.path:
            return safe_return_path(path) or context.post_login_path
    return context.post_login_path


def _unavailable(detail: str) -> Response:
    return Problem(detail, status=503, code="unavailable").response()


def requirement_of(handler: object) -> Requirement | None:
    found = getattr(handler, REQUIREMENT_ATTRIBUTE, None)
    return found if isinstance(found, Requirement) else None


def check_routes(routes: Iterable[tuple[str, object]], policies: Policies) -> None:
    """Refuse to start when a guarded route names a policy nobody configured.

    ``routes`` are (pattern, handler) pairs; the App's start passes its own.
    """
    for pattern, handler in routes:
        requirement = requirement_of(handler)
        if requirement is None or policies.resolve(requirement) is not None:
            continue
        configured = ", ".join(repr(name) for name in policies.names()) or "none"
        raise StartupError(
            POLICY_KEY,
            requirement.name,
            f"the route {pattern!r} is guarded by fw.auth.policy({requirement.name!r}) but no "
            f"[[auth.assurance.policy]] entry has that name (configured: {configured})",
        )
