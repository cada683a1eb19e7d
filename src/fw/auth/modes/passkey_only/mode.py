"""``auth.mode = "passkey_only"``: the registry's entry.

It reads ``[auth.passkey]``, ``[auth.bootstrap]``, ``[auth.recovery]`` (required; ``oidc`` is
refused, there is no provider), ``[auth.registration]`` (required: ``disabled``, ``invite``,
``administrator`` or ``open``) and ``shared_device``. Any ``[auth.oidc]`` key set, such as
``AUTH_OIDC_ISSUER``, is foreign to it (the shared rule refuses it). No development provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold

if TYPE_CHECKING:
    from fw.auth.modes.passkey_only.extension import PasskeyOnly
    from fw.configuration.advisory import Advisory


class PasskeyOnlyMode:
    """The :class:`fw.auth.modes.base.Mode` of ``passkey_only``."""

    name = "passkey_only"
    browser = True
    tables = ("passkey", "bootstrap", "recovery", "registration", "shared_device")
    scaffold = Scaffold(offered=True, available=True)

    def check(self, settings: ModeSettings) -> None:
        from fw.auth.browser.rules import check_assurance, check_session_lifetimes, check_stores
        from fw.auth.passkeys.settings import (
            check_bootstrap,
            check_recovery,
            check_registration,
            check_relying_party,
        )

        auth = settings.auth
        check_recovery(auth, allowed=("administrator", "application"))
        check_registration(auth, allowed=("disabled", "invite", "administrator", "open"), required=True)
        check_relying_party(auth)
        check_bootstrap(auth)
        check_stores(auth, settings.session)
        check_session_lifetimes(auth)
        check_assurance(auth)  # shared_device: no provider session to end, a shared terminal remembers nobody

    def extension(self, settings: ModeSettings) -> PasskeyOnly:
        from fw.auth.modes.passkey_only.extension import PasskeyOnly

        return PasskeyOnly(settings)

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        return []

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        return None


PASSKEY_ONLY = PasskeyOnlyMode()
