"""``auth.mode = "oidc_passkey"``: the registry's entry.

It reads ``[auth.oidc]`` (the provider owns the account), ``[auth.passkey]``, ``[auth.recovery]``
(required: startup refuses until it is set), ``[auth.registration]`` (``oidc``, the default, or
``disabled``) and ``shared_device``; ``fw dev`` points it at the development provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold
from fw.auth.modes.oidc_only.settings import (
    check_oidc_only,
    check_provider,
    oidc_advisories,
    oidc_dev_environment,
)
from fw.auth.modes.oidc_passkey.extension import OidcPasskey
from fw.auth.passkeys.settings import check_recovery, check_registration, check_relying_party
from fw.configuration.advisory import Advisory


class OidcPasskeyMode:
    """The :class:`fw.auth.modes.base.Mode` of ``oidc_passkey``."""

    name = "oidc_passkey"
    browser = True
    tables = ("oidc", "passkey", "recovery", "registration", "shared_device")
    scaffold = Scaffold(offered=True, available=True)

    def check(self, settings: ModeSettings) -> None:
        auth = settings.auth
        check_provider(auth, self.name)
        check_recovery(auth, allowed=("oidc", "administrator", "application"))
        check_oidc_only(settings, self.name)
        check_registration(auth, allowed=("oidc", "disabled"), required=False)
        check_relying_party(auth)

    def extension(self, settings: ModeSettings) -> OidcPasskey:
        return OidcPasskey(settings)

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        return oidc_advisories(values, app_env)

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        return oidc_dev_environment(issuer)


OIDC_PASSKEY = OidcPasskeyMode()
