"""``POST {auth.passkey.path}/bootstrap``: redeem a bootstrap credential for an enrollment ticket.

The ticket is a browser-bound record (cookie ``fw_enroll``), not a session: the request stays
unauthenticated and the ticket permits one registration, within ``auth.bootstrap.enrollment_ttl``.
Every failure (unknown login ID, wrong secret, expired, already redeemed or spent, attempts
exhausted) is the same 403, so the endpoint tells a guesser nothing. Each try spends one attempt
first, by a conditional write: concurrent guesses cannot exceed ``max_attempts``.
"""

from __future__ import annotations

import hmac
import logging
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.browser.answers import unavailable
from fw.auth.passkeys.bound import BoundRecords
from fw.auth.passkeys.calls import MAX_LOGIN_ID, secret_digest
from fw.auth.passkeys.guards import read_json
from fw.auth.passkeys.live import LiveState
from fw.auth.settings import AuthSettings
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.webauthn import PasskeyMalformed
from fw.problems import Problem
from fw.responses import JSONResponse

logger = logging.getLogger("fw.auth")

TICKET_COOKIE = "fw_enroll"
MAX_SECRET = 256


def refused() -> Problem:
    """The one answer to every failed redemption."""
    return Problem(
        "this login ID and secret cannot be redeemed",
        status=403,
        code="bootstrap_refused",
        title="Not redeemed",
    )


def _text(body: dict[str, Any], member: str, cap: int) -> str:
    value = body.get(member)
    if not isinstance(value, str) or not value or len(value) > cap:
        raise PasskeyMalformed(f"{member} must be a string of 1 to {cap} characters.")
    return value


class BootstrapRedemption:
    """The ``/bootstrap`` endpoint."""

    def __init__(self, auth: AuthSettings, live: LiveState, tickets: BoundRecords) -> None:
        self.enrollment_ttl = auth.bootstrap.enrollment_ttl
        self.next = f"{auth.passkey.path.rstrip('/')}/register/begin"
        self.live = live
        self.tickets = tickets

    async def redeem(self, request: Request) -> Response:
        body = await read_json(request)
        if not isinstance(body, dict):
            raise PasskeyMalformed("The body is not a JSON object.")
        login_id, secret = _text(body, "login_id", MAX_LOGIN_ID), _text(body, "secret", MAX_SECRET)
        live = self.live()
        store = live.store.bootstrap
        try:
            record = await store.get(login_id)
            if record is None or record.redeemed or not await store.spend_attempt(login_id):
                raise refused()
            if not hmac.compare_digest(record.secret_digest, secret_digest(secret)):
                logger.info("bootstrap refused: wrong secret")
                raise refused()
            now = datetime.now(UTC)
            until = min(record.expires_at, now + self.enrollment_ttl)
            if not await store.redeem(login_id, until):
                raise refused()
        except StoreUnavailable:
            raise unavailable("bootstrap store") from None
        ticket = {"login_id": login_id, "account_id": record.account_id, "until": until.timestamp()}
        cookie = await self.tickets.put(request, live.store.ceremonies, ticket, until - now)
        response = JSONResponse({"next": self.next})
        response.headers.append("set-cookie", cookie)
        return response
