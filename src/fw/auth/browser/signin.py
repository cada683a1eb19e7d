"""Completing a sign-in, the same in every browser mode: a new session and the cookies it needs.

Rotation: the session the browser arrived with (if any) ends as the new one starts, so a
session identifier planted before sign-in is worthless after it. A pending "reconfirm at the
next sign-in" mark (left by logout) is cleared, as this sign-in has just been confirmed.
"""

from __future__ import annotations

from starlette.requests import Request

from fw.auth.accounts import AccountSeams
from fw.auth.browser.answers import unavailable
from fw.auth.browser.cookies import cookie_policy, expire_cookie, set_cookie
from fw.auth.sessions.manager import RECONFIRM_COOKIE, Sessions, SessionSummary
from fw.auth.stores.errors import StoreUnavailable


async def sign_in(
    request: Request, sessions: Sessions, accounts: AccountSeams, summary: SessionSummary
) -> list[str]:
    """Start the session for ``summary``; returns the Set-Cookie headers the answer must carry."""
    policy = cookie_policy(request)
    secure, name = policy.secure(request), policy.session
    try:
        value = await sessions.start(summary, previous=request.cookies.get(name))
    except StoreUnavailable:
        raise unavailable("session store") from None
    accounts.mark_read(summary.account_id)  # the account was just resolved: no re-read on the next request
    cookies = [set_cookie(name, value, secure=secure, max_age=int(sessions.ttl))]
    if request.cookies.get(RECONFIRM_COOKIE):
        cookies.append(expire_cookie(RECONFIRM_COOKIE, secure=secure))
    return cookies
