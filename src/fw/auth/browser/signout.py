"""The local part of logout, the same in every browser mode: the session ends, the browser forgets it.

What happens at the provider afterwards (nothing, or its end-session endpoint) is the mode's
business; this part never contacts it.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.browser.answers import unavailable
from fw.auth.browser.cookies import cookie_secure, expire_cookie, set_cookie
from fw.auth.browser.login_state import LOGIN_COOKIE
from fw.auth.sessions.manager import RECONFIRM_COOKIE, SESSION_COOKIE, Sessions
from fw.auth.stores.errors import StoreUnavailable

#: How long the browser remembers to ask for proof and an account choice at the next sign-in.
RECONFIRM_LIFETIME = 30 * 24 * 3600


async def sign_out(request: Request, sessions: Sessions) -> list[str]:
    """End this browser's session; returns the Set-Cookie headers the answer must carry.

    The session and any sign-in in progress are forgotten, and the next sign-in demands proof
    and an account choice instead of silently reusing the provider's own session.
    """
    secure = cookie_secure(request)
    value = request.cookies.get(SESSION_COOKIE)
    if value:
        try:
            await sessions.end(value)
        except StoreUnavailable:
            raise unavailable("session store") from None
    return [
        expire_cookie(SESSION_COOKIE, secure=secure),
        expire_cookie(LOGIN_COOKIE, secure=secure),
        set_cookie(RECONFIRM_COOKIE, "1", secure=secure, max_age=RECONFIRM_LIFETIME),
    ]


async def local_logout(request: Request, sessions: Sessions, target: str = "/") -> Response:
    """The whole answer of a logout that ends only the local session: 303 to ``target``."""
    cookies = await sign_out(request, sessions)
    response = RedirectResponse(target, status_code=303)
    for cookie in cookies:
        response.headers.append("set-cookie", cookie)
    response.headers["cache-control"] = "no-store"
    return response
