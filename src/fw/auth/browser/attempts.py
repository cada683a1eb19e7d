"""The two ends of a provider round trip, the same in every mode that sends the browser away.

The login end seals the new attempt into the ``fw_login`` cookie beside the attempts of other
tabs and sends the browser to the provider; the callback end takes the one attempt the
callback's ``state`` names, lets the mode finish it, and leaves the others in the cookie. An
OAuth error the provider put on the callback is turned into a problem here, once.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.browser.answers import login_failed
from fw.auth.browser.cookies import cookie_secure, expire_cookie, set_cookie
from fw.auth.browser.login_keys import AgreedLoginStates
from fw.auth.browser.login_state import LOGIN_COOKIE, LOGIN_LIFETIME, LoginAttempt
from fw.auth.browser.redirects import safe_return_path
from fw.auth.oidc.authorization import PendingLogin
from fw.problems import Problem

if TYPE_CHECKING:
    from fw.auth.assurance.stepup import StepUp

logger = logging.getLogger("fw.auth")
_ERROR_CODE = re.compile(r"[^A-Za-z0-9_.-]")

#: A longer ``?next=`` is dropped for ``post_login_path`` (the sealed login cookie must stay small).
MAX_NEXT_BYTES = 1024

#: Finishes the attempt a callback belongs to (``None``: none matched its state); the second
#: argument says whether this browser had any attempt in progress at all.
Finish = Callable[[LoginAttempt | None, bool], Awaitable[Response]]


def return_target(request: Request, post_login_path: str) -> str:
    """Where the browser lands after signing in: a safe ``?next=`` of bounded size, else the default."""
    target = safe_return_path(request.query_params.get("next")) or post_login_path
    if len(target.encode()) > MAX_NEXT_BYTES:
        return post_login_path  # keeps the sealed login cookie within browser limits
    return target


def new_attempt(pending: PendingLogin, target: str, step: StepUp | None, *, nonce: str) -> LoginAttempt:
    """The attempt a login seals: ``pending``'s secrets (``nonce`` its own, or ``""`` where no ID
    token comes back to bind one to), where the browser lands, and the step-up it began."""
    return LoginAttempt(
        state=pending.state,
        nonce=nonce,
        verifier=pending.code_verifier,
        redirect_uri=pending.redirect_uri,
        next=target,
        expires_at=time.time() + LOGIN_LIFETIME,
        step_up=step.as_dict() if step is not None else None,
    )


def pending_login(attempt: LoginAttempt) -> PendingLogin:
    """The secrets ``attempt`` sealed, as the code exchange takes them."""
    return PendingLogin(
        state=attempt.state,
        nonce=attempt.nonce,
        code_verifier=attempt.verifier,
        redirect_uri=attempt.redirect_uri,
    )


async def send_to_provider(
    request: Request, logins: AgreedLoginStates, attempt: LoginAttempt, url: str
) -> Response:
    """302 to the provider's ``url``, with ``attempt`` sealed beside this browser's other attempts."""
    attempts = await logins.open(request.cookies.get(LOGIN_COOKIE))  # other tabs' attempts stay valid
    sealed = await logins.seal([*attempts, attempt])
    response = RedirectResponse(url, status_code=302)
    response.headers.append(
        "set-cookie",
        set_cookie(
            LOGIN_COOKIE,
            sealed,
            secure=cookie_secure(request),
            max_age=int(LOGIN_LIFETIME),
        ),
    )
    response.headers["cache-control"] = "no-store"
    return response


async def take_callback(request: Request, logins: AgreedLoginStates, finish: Finish) -> Response:
    """Finish the attempt the callback's ``state`` names; any failure is a problem and no session."""
    secure = cookie_secure(request)
    attempts = await logins.open(request.cookies.get(LOGIN_COOKIE))
    attempt, others = logins.take(attempts, request.query_params.get("state", ""))
    try:
        response = await finish(attempt, bool(attempts))
    except Problem as problem:
        response = problem.response()
    if others:
        remaining = int(min(a.expires_at for a in others) - time.time())
        # The key that opened them moments ago: no store round trip that could lose the answer.
        sealed = logins.reseal(others)
        cookie = set_cookie(LOGIN_COOKIE, sealed, secure=secure, max_age=max(remaining, 1))
    else:
        cookie = expire_cookie(LOGIN_COOKIE, secure=secure)
    response.headers.append("set-cookie", cookie)
    response.headers["cache-control"] = "no-store"
    return response


def no_attempt(login_path: str) -> Problem:
    """A callback reaching a browser that started no sign-in (or one whose attempts expired)."""
    return login_failed(f"no sign-in is in progress in this browser; start again at {login_path}")


def foreign_state() -> Problem:
    """A callback whose ``state`` matches none of this browser's attempts."""
    return login_failed("the sign-in response does not belong to this browser (state mismatch)")


def check_callback(params: QueryParams) -> str:
    """The callback's ``code``; an OAuth ``error`` on it, or no code at all, is the problem raised.

    ``access_denied`` (the person declined) is a 403, any other error a 400. The error code is
    reduced to the OAuth alphabet before it is echoed or logged.
    """
    if "error" in params:
        error = _ERROR_CODE.sub("", params["error"])[:64] or "an unnamed error"
        logger.info(
            "identity provider refused the sign-in: %s %r", error, params.get("error_description", "")[:256]
        )
        if error == "access_denied":  # the person cancelled (or declined) at the provider
            raise login_failed(
                "the sign-in was cancelled at the identity provider (access_denied); "
                "sign in again to continue",
                status=403,
            )
        raise login_failed(f"the identity provider answered {error}")
    code = params.get("code", "")
    if not code:
        raise login_failed("the sign-in response carries no code")
    return code
