"""The step-up: a login begun by a signed-in browser to re-prove who it is, and its rules.

``GET {login_path}?max_age=<seconds>`` while signed in begins one: the attempt records the
session's account and identity (issuer, identity-claim value), when it began and, for a zero
window, the ``operation`` the guard named (:func:`fw.auth.assurance.grants.operation_id`), and the
provider is asked for ``prompt=login`` and ``max_age``. ``prompt=login`` cannot be verified, so
the callback decides on ``auth_time`` alone. It must:

1. carry ``auth_time`` (a missing one after ``max_age`` was sent is a failed re-proof);
2. have ``auth_time`` inside the window: no earlier than the step-up's start minus ``max_age``
   (a few seconds of clock difference tolerated), and not in the future;
3. come from the same issuer with the same identity-claim value as the session;
4. pass admission again and resolve to the same, still active, account;
5. find the same session still in place.

Anything else is a 403 and nothing is written. A completed step-up moves the session to
``confirmed`` under a new session token (the earlier one revoked): its proof time and
confirmation time become ``auth_time``, and a zero window asked for by a guard also leaves a
one-use grant for that guard's operation alone (:mod:`.grants`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.assurance import grants
from fw.auth.assurance.context import session_of
from fw.auth.browser.answers import not_started, unavailable
from fw.auth.browser.cookies import cookie_secure, session_cookie, set_cookie
from fw.auth.browser.redirects import safe_return_path
from fw.auth.browser.user import user
from fw.auth.sessions.manager import Sessions
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import CeremonyStore
from fw.problems import Problem

#: The login path's query parameter that makes a login a step-up (seconds, ``0`` allowed).
MAX_AGE_PARAM = "max_age"
#: The login path's query parameter naming the operation a zero-window guard asks a grant for.
OPERATION_PARAM = "operation"
#: Seconds of clock difference tolerated between this host and the provider.
CLOCK_SKEW = 5
#: The widest window a step-up may ask for (a year); more is a malformed request.
MAX_WINDOW = 366 * 24 * 3600


@dataclass(frozen=True, slots=True)
class StepUp:
    """A step-up in flight: the window asked for and the session identity it must prove again."""

    max_age: int
    account_id: str
    issuer: str
    key: str
    started_at: float
    #: The operation a zero window's grant is bound to (``""``: none asked, no grant left).
    operation: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, value: object) -> StepUp | None:
        """The step-up sealed in a login attempt; anything malformed is ``None`` (no step-up)."""
        if not isinstance(value, dict):
            return None
        try:
            step = cls(**value)
        except TypeError:
            return None
        texts = (step.account_id, step.issuer, step.key, step.operation)
        if not isinstance(step.max_age, int) or isinstance(step.max_age, bool) or step.max_age < 0:
            return None
        if not all(isinstance(text, str) for text in texts) or not isinstance(step.started_at, int | float):
            return None
        return step


def step_up_failed(detail: str) -> Problem:
    """The one answer of a failed re-proof: 403, nothing written, the session as it was."""
    return Problem(detail, status=403, code="step_up_failed", title="Step-up failed")


def requested_window(request: Request) -> int | None:
    """The ``max_age`` a login was asked for, ``None`` for an ordinary login; malformed is a 400."""
    raw = request.query_params.get(MAX_AGE_PARAM)
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or int(raw) > MAX_WINDOW:
        raise Problem(
            f"max_age must be a whole number of seconds between 0 and {MAX_WINDOW}",
            status=400,
            code="bad_request",
        )
    return int(raw)


def requested_operation(request: Request) -> str:
    """The operation a zero-window guard named (``""``: none); a malformed one is a 400."""
    raw = request.query_params.get(OPERATION_PARAM)
    if raw is None:
        return ""
    if not grants.is_operation_id(raw):
        raise Problem(
            f"{OPERATION_PARAM} must be the operation a guard named in its login URL",
            status=400,
            code="bad_request",
        )
    return raw


def begin(request: Request, max_age: int | None) -> StepUp | None:
    """The step-up a login request starts: only a signed-in browser re-proves (else: a login)."""
    if max_age is None:
        return None
    operation = requested_operation(request)
    current = user(request)
    if current is None:
        return None
    return StepUp(
        max_age,
        current.account_id,
        current.issuer,
        current.key,
        time.time(),
        operation if max_age == 0 else "",
    )


def check_proof(
    step: StepUp, *, issuer: str, key: str, auth_time: int | None, now: float | None = None
) -> None:
    """Rules 1 to 3: the answer re-proves the same identity inside the window, else 403."""
    if issuer != step.issuer or key != step.key:
        raise step_up_failed("the re-proof is of another identity than this session's; nothing changed")
    if auth_time is None:
        raise step_up_failed("the provider did not say when the person proved who they are (no auth_time)")
    moment = time.time() if now is None else now
    if auth_time < step.started_at - step.max_age - CLOCK_SKEW or auth_time > moment + CLOCK_SKEW:
        raise step_up_failed("the provider's proof is not within the window this step-up asked for")


async def complete(
    request: Request,
    step: StepUp,
    account_id: str,
    auth_time: int,
    sessions: Sessions,
    ceremonies: CeremonyStore,
) -> str:
    """Rules 4 and 5, then the move to ``confirmed``; returns the session's Set-Cookie header."""
    active = session_of(request)
    if active is None or active.summary.account_id != step.account_id or account_id != step.account_id:
        raise step_up_failed("the session that asked for this step-up has ended or changed")
    summary = active.summary
    try:
        grant = summary.grant
        if step.max_age == 0 and step.operation:
            grant = await grants.issue(ceremonies, account_id, step.operation)
        # A new token for the raised assurance: a copy taken before the step-up stays unconfirmed.
        await sessions.rotate(
            active, dataclasses.replace(summary, auth_time=auth_time, confirmed_at=auth_time, grant=grant)
        )
    except StoreUnavailable:
        raise unavailable("session store") from None
    max_age = max(1, int(active.expires_at - time.time()))
    return set_cookie(session_cookie(request), active.value, secure=cookie_secure(request), max_age=max_age)


async def land(
    request: Request,
    step: StepUp,
    account_id: str,
    auth_time: int,
    sessions: Sessions,
    ceremonies: Callable[[], CeremonyStore] | None,
    target: str,
    post_login_path: str,
) -> Response:
    """The callback of a step-up: the session moves to ``confirmed`` (:func:`complete`) and the
    browser resumes at ``target`` (a safe return path, else ``post_login_path``). Without
    ``ceremonies`` (the mode has not started) the answer is a 503."""
    if ceremonies is None:
        raise not_started()
    cookie = await complete(request, step, account_id, auth_time, sessions, ceremonies())
    response = RedirectResponse(safe_return_path(target) or post_login_path, status_code=303)
    response.headers.append("set-cookie", cookie)
    return response
