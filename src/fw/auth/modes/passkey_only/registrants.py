"""Who may begin a registration in ``passkey_only``: the holder of an enrollment ticket, or a
signed-in person adding a passkey to their own account (another passkey is how they recover),
unless ``auth.registration.policy = "administrator"`` keeps every enrollment in the hands of
the bootstrap credentials an administrator issues.

A ticket is taken and put back under a new cookie at each ``begin``, keeping its end: a failed
ceremony may be retried, and the atomic enrollment lets only one registration through.
"""

from __future__ import annotations

import time
from datetime import timedelta

from starlette.requests import Request

from fw.auth.browser.user import user
from fw.auth.passkeys.bound import BoundRecords
from fw.auth.passkeys.live import Live
from fw.auth.passkeys.registration import Registrant, sign_in_required
from fw.problems import Problem


class PasskeyOnlyRegistrants:
    def __init__(self, policy: str, tickets: BoundRecords) -> None:
        self.policy = policy
        self.tickets = tickets

    async def __call__(self, request: Request, live: Live) -> Registrant:
        ticket = await self.tickets.take(request, live.store.ceremonies)
        if ticket is not None:
            until = float(ticket.get("until", 0))
            remaining = until - time.time()
            if remaining > 0:
                login_id, account_id = str(ticket["login_id"]), str(ticket["account_id"])
                cookie = await self.tickets.put(
                    request, live.store.ceremonies, ticket, timedelta(seconds=remaining)
                )
                return Registrant(account_id, login_id, login_id, login_id, until, (cookie,))
        current = user(request)
        if current is None:
            raise sign_in_required()
        if self.policy == "administrator":
            raise Problem(
                "passkeys are enrolled with bootstrap credentials only "
                "(auth.registration.policy = administrator)",
                status=403,
                code="registration_disabled",
            )
        name = current.display_name or current.account_id
        return Registrant(current.account_id, name, name)
