"""The ``oidc_passkey`` extension: ``oidc_only`` for the account, passkeys for daily sign-in.

Registering a passkey needs a session whose proof is recent (at most 5 minutes old, the rule
:func:`fw.auth.passkeys.registration.require_recent_proof` both passkey modes share), so a
session left open on someone else's screen cannot plant a passkey. Unless recovery is the
provider's (``auth.recovery.policy = "oidc"``), an account that holds a passkey signs in only
with one: the provider login stays for accounts without any (the first sign-in, or after an
administrator removed lost ones).
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request

from fw.auth.accounts import Account
from fw.auth.browser.answers import not_started
from fw.auth.browser.user import user
from fw.auth.modes.base import ModeSettings
from fw.auth.modes.oidc_only import OidcOnly
from fw.auth.passkeys.endpoints import PasskeyEndpoints
from fw.auth.passkeys.live import Live
from fw.auth.passkeys.registration import (
    Registrant,
    registration_disabled,
    require_recent_proof,
    sign_in_required,
)
from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute
from fw.extension import Probe


class OidcPasskey:
    """The ``oidc_passkey`` extension plugged into the App."""

    def __init__(self, settings: ModeSettings) -> None:
        auth = settings.auth
        self.registration_policy = auth.registration.policy or "oidc"
        self.passkeys = PasskeyEndpoints(auth, self._live, self._registrant)
        gate = None if auth.recovery.policy == "oidc" else self._without_passkeys
        self.oidc = OidcOnly(
            settings, extra_kinds=("ceremonies", "passkeys"), exempt=self.passkeys.paths(), account_gate=gate
        )

    # Extension protocol.
    def routes(self) -> Sequence[BaseRoute]:
        return [*self.oidc.routes(), *self.passkeys.routes()]

    def middleware(self) -> Sequence[Middleware]:
        return self.oidc.middleware()

    async def startup(self) -> None:
        await self.oidc.startup()

    def readiness_probes(self) -> list[Probe]:
        return self.oidc.readiness_probes()

    async def probe(self) -> None:
        await self.oidc.probe()

    async def shutdown(self) -> None:
        await self.oidc.shutdown()

    def _live(self) -> Live:
        sessions = self.oidc.sessions  # 503 before startup
        if self.oidc.auth_store is None:
            raise not_started()
        return Live(self.oidc.auth_store, sessions, self.oidc.accounts)

    async def _registrant(self, request: Request, live: Live) -> Registrant:
        if self.registration_policy == "disabled":
            raise registration_disabled("passkey registration is disabled (auth.registration.policy)")
        current = user(request)
        if current is None:
            raise sign_in_required()
        require_recent_proof(current)
        name = current.email or current.display_name or current.account_id
        return Registrant(current.account_id, name, current.display_name or name)

    async def _without_passkeys(self, account: Account) -> bool:
        """Unless recovery is the provider's, only an account without a passkey signs in there."""
        return not await self._live().store.passkeys.by_account(account.account_id)
