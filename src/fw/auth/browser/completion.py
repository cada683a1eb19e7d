"""The end of every provider sign-in: admission, the account, the session, the landing page.

The mode has verified an identity its own way (an ID token, a profile lookup); from there on
the steps are the same: the admission policy decides, the account resolver finds or creates
the account, an inactive or missing account is refused, and the session starts (rotated).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.accounts import Account, AccountSeams, Identity
from fw.auth.admission import Admission
from fw.auth.browser.answers import not_admitted, unavailable
from fw.auth.browser.redirects import safe_return_path
from fw.auth.browser.signin import sign_in
from fw.auth.sessions.manager import Sessions, SessionSummary
from fw.auth.stores.errors import StoreUnavailable

logger = logging.getLogger("fw.auth")


async def admit(admission: Admission, policy: str, issuer: str, claims: Mapping[str, Any]) -> None:
    """Refuse an identity the policy does not admit (``existing``: the resolver decides)."""
    if policy == "existing":
        return  # the resolver decides: it may not create accounts
    try:
        admitted = await admission.admits(issuer, claims)
    except StoreUnavailable as error:
        logger.error("allow-list unavailable during sign-in: %s", error)
        raise unavailable("account store") from None
    if not admitted:
        raise not_admitted()


async def resolve_account(accounts: AccountSeams, identity: Identity) -> Account:
    """The active account of ``identity``; none (or a suspended one) is refused."""
    try:
        account = await accounts.resolve(identity)
    except StoreUnavailable as error:
        logger.error("account store unavailable during sign-in: %s", error)
        raise unavailable("account store") from None
    if account is None or not account.active:
        raise not_admitted()
    return account


async def land_signed_in(
    request: Request,
    sessions: Sessions,
    accounts: AccountSeams,
    summary: SessionSummary,
    target: str,
    post_login_path: str,
) -> Response:
    """Start the session for ``summary`` and send the browser to ``target`` (if still safe)."""
    cookies = await sign_in(request, sessions, accounts, summary)
    response = RedirectResponse(safe_return_path(target) or post_login_path, status_code=303)
    for cookie in cookies:
        response.headers.append("set-cookie", cookie)
    return response
