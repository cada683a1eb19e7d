"""Sign-in by passkey: ``/login/begin`` and ``/login/finish``, and the session a passkey starts.

Discoverable credentials: ``begin`` names no credential and no user, so nobody types a user name
and the server reveals nothing. ``finish`` looks the credential up by ID, verifies the assertion
against it (its ``userHandle`` must be the one the credential was registered under), records the
use by a conditional write (a sign count never moves down, so a clone loses the race), then asks
the App's account seams whether the account may still sign in: a suspended one may not.

A browser already signed in does not sign in again: its assertion re-proves the session
(:func:`reprove_session`), and a passkey of another account changes nothing. ``begin`` takes
the ``operation`` a zero-window guard named in its login URL (passkey.js forwards the login
page's), so the re-proof leaves the one-use grant of that operation and of no other.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.accounts import Account
from fw.auth.assurance.stepup import StepUp, complete, requested_operation, step_up_failed
from fw.auth.browser.answers import unavailable
from fw.auth.browser.redirects import safe_return_path
from fw.auth.browser.signin import sign_in
from fw.auth.browser.user import user
from fw.auth.passkeys.bound import BoundRecords
from fw.auth.passkeys.guards import read_empty, read_json
from fw.auth.passkeys.live import Live, LiveState
from fw.auth.sessions.manager import SessionSummary
from fw.auth.settings import AuthSettings
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.webauthn import (
    CEREMONY_TIMEOUT,
    KnownCredential,
    PasskeyMalformed,
    PasskeyRejected,
    Rejection,
    RelyingParty,
    authentication_options,
    new_challenge,
    parse_authentication_response,
    verify_authentication,
)
from fw.base64url import decode, encode
from fw.problems import Problem
from fw.responses import JSONResponse

logger = logging.getLogger("fw.auth")

#: ``fw.auth.user(request).issuer`` after a passkey sign-in (``key`` is then the account ID).
PASSKEY_ISSUER = "passkey"


def no_ceremony() -> PasskeyMalformed:
    """A finish without a matching begin in this browser (never begun, taken, expired): 400."""
    return PasskeyMalformed("No passkey ceremony of this browser is waiting for this answer; begin again.")


async def finishing(request: Request, ceremony: BoundRecords, live: Live) -> tuple[Any, dict[str, Any]]:
    """A finish's decoded body and this browser's ceremony record, taken (400 without one)."""
    body = await read_json(request)
    record = await ceremony.take(request, live.store.ceremonies)
    if record is None:
        raise no_ceremony()
    return body, record


def answer(payload: dict[str, Any], cookies: Iterable[str]) -> JSONResponse:
    """A JSON answer carrying the Set-Cookie headers ``cookies``."""
    response = JSONResponse(payload)
    for cookie in cookies:
        response.headers.append("set-cookie", cookie)
    return response


def challenge_of(record: dict[str, object]) -> bytes:
    value = record.get("challenge")
    return decode(value) if isinstance(value, str) else b""


async def _active_account(live: Live, account_id: str) -> Account:
    """The account a passkey just proved, re-checked: 403 when it may no longer sign in."""
    try:
        account = await live.accounts.lookup(account_id)
    except StoreUnavailable as error:
        logger.error("account store unavailable during passkey sign-in: %s", error)
        raise unavailable("account store") from None
    if account is None or not account.active:
        raise Problem("this account may not sign in", status=403, code="not_admitted", title="Sign-in failed")
    return account


async def reprove_session(request: Request, live: Live, account_id: str, operation: str = "") -> list[str]:
    """A passkey assertion by a signed-in browser is a re-proof of its session, never a switch.

    The same account: the session moves to confirmed now (a zero-width step-up, which also
    fills every positive window, and leaves the one-use grant of ``operation`` when a guard
    named one). Another account: 403 and the session stays as it was; the browser signs out
    before signing in as someone else.
    """
    current = user(request)
    if current is None or current.account_id != account_id:
        raise step_up_failed("this browser is signed in as another account; sign out first")
    await _active_account(live, account_id)
    now = int(time.time())
    step = StepUp(0, current.account_id, current.issuer, current.key, now, operation)
    return [await complete(request, step, account_id, now, live.sessions, live.store.ceremonies)]


async def start_passkey_session(request: Request, live: Live, account_id: str) -> list[str]:
    """Start the session of an account that just proved a passkey; 403 when it may not sign in."""
    account = await _active_account(live, account_id)
    summary = SessionSummary(
        account_id=account.account_id,
        display_name=account.display_name,
        email=account.email,
        issuer=PASSKEY_ISSUER,
        key=account.account_id,
        auth_time=int(time.time()),
        method="passkey",
    )
    return await sign_in(request, live.sessions, live.accounts, summary)


class PasskeySignIn:
    """The two sign-in endpoints of a passkey mode."""

    def __init__(
        self, auth: AuthSettings, party: RelyingParty, ceremony: BoundRecords, live: LiveState
    ) -> None:
        self.auth = auth
        self.party = party
        self.ceremony = ceremony
        self.live = live

    async def begin(self, request: Request) -> Response:
        await read_empty(request)
        live = self.live()
        challenge = new_challenge()
        landing = safe_return_path(request.query_params.get("next")) or self.auth.post_login_path
        operation = requested_operation(request)  # 400 when malformed
        record = {"challenge": encode(challenge), "landing": landing, "operation": operation}
        cookie = await self.ceremony.put(request, live.store.ceremonies, record, CEREMONY_TIMEOUT)
        return answer(authentication_options(self.party, challenge=challenge), [cookie])

    async def finish(self, request: Request) -> Response:
        live = self.live()
        body, record = await finishing(request, self.ceremony, live)
        response = parse_authentication_response(body)
        try:
            stored = await live.store.passkeys.get(response.credential_id)
            known = None
            if stored is not None:
                known = KnownCredential(
                    stored.credential_id,
                    stored.public_key,
                    stored.sign_count,
                    stored.user_handle,
                    stored.backup_eligible,
                )
            try:
                verified = verify_authentication(
                    response, party=self.party, challenge=challenge_of(record), credential=known
                )
            except PasskeyRejected as rejected:
                logger.info("passkey sign-in refused: %s", rejected.reason.value)
                raise
            used = await live.store.passkeys.record_use(
                verified.credential_id,
                sign_count=verified.sign_count,
                backed_up=verified.backup_state,
                used_at=datetime.now(UTC),
            )
        except StoreUnavailable as error:
            logger.error("passkey store unavailable during sign-in: %s", error)
            raise unavailable("passkey store") from None
        if not used or stored is None:
            logger.info("passkey sign-in refused: the sign count did not move up")
            raise PasskeyRejected(Rejection.SIGN_COUNT)
        if user(request) is not None:
            operation = record.get("operation")
            asked = operation if isinstance(operation, str) else ""
            cookies = await reprove_session(request, live, stored.account_id, asked)
        else:
            cookies = await start_passkey_session(request, live, stored.account_id)
        landing = record.get("landing")
        target = landing if isinstance(landing, str) else self.auth.post_login_path
        return answer({"landing": target}, [*cookies, self.ceremony.expire(request)])
