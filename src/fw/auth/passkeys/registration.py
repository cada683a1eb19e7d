"""Registering a passkey: ``/register/begin`` and ``/register/finish``.

Who may register, and for which account, is the mode's decision (a :data:`Registrants` callable:
a signed-in session with a recent proof in ``oidc_passkey``; the same, or an enrollment ticket, in
``passkey_only``). The recent-proof rule is shared (:func:`require_recent_proof`): a session left
open on someone else's screen cannot plant a passkey. What follows is the same in both: the
options exclude the account's existing credentials and reuse its user handle, the ceremony is
bound to the browser, and the verified credential is stored, or, on an enrollment ticket, stored
together with activating the account and spending the bootstrap record in one atomic step, after
which the person is signed in.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.browser.answers import unavailable
from fw.auth.browser.user import User, user
from fw.auth.passkeys.bound import BoundRecords
from fw.auth.passkeys.guards import read_empty
from fw.auth.passkeys.live import Live, LiveState
from fw.auth.passkeys.signin import answer, challenge_of, finishing, start_passkey_session
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.records import PasskeyCredential
from fw.auth.webauthn import (
    CEREMONY_TIMEOUT,
    PasskeyRejected,
    Rejection,
    RelyingParty,
    new_challenge,
    parse_registration_response,
    registration_options,
    verify_registration,
)
from fw.base64url import decode, encode
from fw.problems import Problem

logger = logging.getLogger("fw.auth")

USER_HANDLE_BYTES = 32
#: How recent (seconds) the proof of a signed-in session adding a passkey must be.
RECENT_PROOF = 300


@dataclass(frozen=True, slots=True)
class Registrant:
    """Whose passkey a ``begin`` registers. ``login_id`` is set on an enrollment ticket, whose
    remaining life (``until``, UNIX time) bounds the ceremony; ``cookies`` go with the answer."""

    account_id: str
    name: str
    display_name: str
    login_id: str = ""
    until: float = 0.0
    cookies: tuple[str, ...] = ()


#: The mode's rule for ``begin``: the registrant, or a 401/403 problem.
Registrants = Callable[[Request, Live], Awaitable[Registrant]]


def sign_in_required() -> Problem:
    return Problem("sign in before registering a passkey", status=401, code="unauthorized")


def registration_disabled(detail: str) -> Problem:
    return Problem(detail, status=403, code="registration_disabled")


def require_recent_proof(current: User) -> None:
    """401 ``reauthentication_required`` unless the session proved who it is at most
    :data:`RECENT_PROOF` seconds ago (a sign-in, a step-up or a passkey assertion while signed
    in). A session whose proof time is unknown (a provider that did not say) has none."""
    if current.auth_time is None or time.time() - current.auth_time > RECENT_PROOF:
        raise Problem(
            f"prove who you are again first: adding a passkey needs a proof at most "
            f"{RECENT_PROOF // 60} minutes old",
            status=401,
            code="reauthentication_required",
        )


class PasskeyRegistration:
    """The two registration endpoints of a passkey mode. ``tickets`` are the enrollment tickets
    (``passkey_only``), taken when the enrollment they permit completes."""

    def __init__(
        self,
        party: RelyingParty,
        ceremony: BoundRecords,
        live: LiveState,
        registrants: Registrants,
        tickets: BoundRecords | None = None,
    ) -> None:
        self.party = party
        self.ceremony = ceremony
        self.live = live
        self.registrants = registrants
        self.tickets = tickets

    async def begin(self, request: Request) -> Response:
        await read_empty(request)
        live = self.live()
        registrant = await self.registrants(request, live)
        try:
            existing = await live.store.passkeys.by_account(registrant.account_id)
        except StoreUnavailable:
            raise unavailable("passkey store") from None
        handle = existing[0].user_handle if existing else secrets.token_bytes(USER_HANDLE_BYTES)
        challenge = new_challenge()
        options = registration_options(
            self.party,
            challenge=challenge,
            user_handle=handle,
            user_name=registrant.name,
            display_name=registrant.display_name,
            exclude=[credential.credential_id for credential in existing],
        )
        lifetime = CEREMONY_TIMEOUT
        if registrant.login_id:
            lifetime = min(lifetime, timedelta(seconds=registrant.until - time.time()))
        record = {
            "challenge": encode(challenge),
            "account_id": registrant.account_id,
            "user_handle": encode(handle),
            "login_id": registrant.login_id,
        }
        cookie = await self.ceremony.put(request, live.store.ceremonies, record, lifetime)
        return answer(options, [*registrant.cookies, cookie])

    async def finish(self, request: Request) -> Response:
        live = self.live()
        body, record = await finishing(request, self.ceremony, live)
        response = parse_registration_response(body)
        account_id, login_id = str(record.get("account_id", "")), str(record.get("login_id", ""))
        if not login_id:
            current = user(request)
            if current is None or current.account_id != account_id:
                raise sign_in_required()  # signed out, or another account, since begin
        try:
            verified = verify_registration(response, party=self.party, challenge=challenge_of(record))
        except PasskeyRejected as rejected:
            logger.info("passkey registration refused: %s", rejected.reason.value)
            raise
        credential = PasskeyCredential(
            credential_id=verified.credential_id,
            account_id=account_id,
            public_key=verified.public_key,
            sign_count=verified.sign_count,
            user_handle=decode(str(record.get("user_handle", ""))),
            created_at=datetime.now(UTC),
            transports=verified.transports,
            backup_eligible=verified.backup_eligible,
            backed_up=verified.backup_state,
        )
        try:
            if login_id:
                stored = await live.store.bootstrap.enroll(login_id, credential)
            else:
                stored = await live.store.passkeys.add(credential)
        except StoreUnavailable:
            raise unavailable("passkey store") from None
        if not stored:
            logger.info("passkey registration refused: ticket spent or expired, or credential ID taken")
            raise PasskeyRejected(Rejection.CREDENTIAL_ID)
        cookies = [self.ceremony.expire(request)]
        if login_id and self.tickets is not None:
            await self.tickets.take(request, live.store.ceremonies)
            cookies += [self.tickets.expire(request), *await start_passkey_session(request, live, account_id)]
        return answer({"credential_id": encode(credential.credential_id)}, cookies)
