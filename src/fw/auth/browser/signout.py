"""The local part of logout, the same in every browser mode: the session ends, the browser forgets it.

What happens at the provider afterwards (nothing, or its end-session endpoint) is the mode's
business; this part never contacts it.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.browser.answers import unavailable
from fw.auth.browser.cookies import cookie_policy, cookie_secure, expire_cookie, session_cookie, set_cookie
from fw.auth.browser.login_state import LOGIN_COOKIE
from fw.auth.sessions.manager import RECONFIRM_COOKIE, Sessions
from fw.auth.stores.errors import StoreUnavailable

#: How long the browser remembers to ask for proof and an account choice at the next sign-in.
RECONFIRM_LIFETIME = 30 * 24 * 3600


#: What else a session's end leaves in the browser, given the request (its user) and cookie security:
#: the remembered-visitor note (:mod:`fw.auth.assurance.hint_cookie`).
Farewell = Callable[[Request, bool], list[str]]


def ended_cookies(request: Request) -> list[str]:
    """The Set-Cookie headers of any session's end: the session and any sign-in in progress are
    forgotten, and the next sign-in demands proof and an account choice instead of silently
    reusing the provider's own session."""
    secure = cookie_secure(request)
    return [
        expire_cookie(session_cookie(request), secure=secure),
        expire_cookie(LOGIN_COOKIE, secure=secure),
        set_cookie(RECONFIRM_COOKIE, "1", secure=secure, max_age=RECONFIRM_LIFETIME),
    ]


async def sign_out(request: Request, sessions: Sessions, farewell: Farewell | None = None) -> list[str]:
    """End this browser's session; returns the Set-Cookie headers the answer must carry."""
    policy = cookie_policy(request)
    value = request.cookies.get(policy.session)
    if value:
        try:
            await sessions.end(value)
        except StoreUnavailable:
            raise unavailable("session store") from None
    secure = policy.secure(request)
    return ended_cookies(request) + (farewell(request, secure) if farewell is not None else [])


async def local_logout(
    request: Request, sessions: Sessions, target: str = "/", farewell: Farewell | None = None
) -> Response:
    """The whole answer of a logout that ends only the local session: 303 to ``target``."""
    cookies = await sign_out(request, sessions, farewell)
    response = RedirectResponse(target, status_code=303)
    for cookie in cookies:
        response.headers.append("set-cookie", cookie)
    response.headers["cache-control"] = "no-store"
    return response
