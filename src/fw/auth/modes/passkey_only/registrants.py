"""Who may begin a registration in ``passkey_only``: the holder of an enrollment ticket, or a
signed-in person adding a passkey to their own account.

The registration policy decides how accounts and their first credentials come into being
(bootstrap credentials from an administrator, invitations, sign-ups), not whether the owner of an
account may add a passkey to it: "another passkey" is this mode's recovery, so a second one must
be possible under every policy except ``disabled``. A session adds one only with a recent proof
(:func:`~fw.auth.passkeys.registration.require_recent_proof`: a passkey assertion at most 5
minutes old, the sign-in or a re-proof while signed in), as in ``oidc_passkey``.

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
from fw.auth.passkeys.registration import (
    Registrant,
    registration_disabled,
    require_recent_proof,
    sign_in_required,
)


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
        if self.policy == "disabled":
            raise registration_disabled(
                "a signed-in person adds no passkey (auth.registration.policy = disabled)"
            )
        require_recent_proof(current)
        name = current.display_name or current.account_id
        return Registrant(current.account_id, name, name)
