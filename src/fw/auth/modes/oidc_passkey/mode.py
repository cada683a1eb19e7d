"""``auth.mode = "oidc_passkey"``: the registry's entry.

It reads ``[auth.oidc]`` (the provider owns the account), ``[auth.passkey]``, ``[auth.recovery]``
(required: startup refuses until it is set), ``[auth.registration]`` (``oidc``, the default, or
``disabled``) and ``shared_device``; ``fw dev`` points it at the development provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fw.auth.modes.base import ModeSettings, Scaffold
from fw.auth.modes.oidc_only.mode import OidcOnlyMode

if TYPE_CHECKING:
    from fw.auth.modes.oidc_passkey.extension import OidcPasskey


class OidcPasskeyMode(OidcOnlyMode):
    """The :class:`fw.auth.modes.base.Mode` of ``oidc_passkey``: ``oidc_only``'s advisories and
    development provider, its own tables, checks and extension."""

    name = "oidc_passkey"
    tables = ("oidc", "passkey", "recovery", "registration", "shared_device")
    scaffold = Scaffold(offered=True, available=True)

    def check(self, settings: ModeSettings) -> None:
        from fw.auth.modes.oidc_only.settings import check_oidc_only, check_provider
        from fw.auth.passkeys.settings import check_recovery, check_registration, check_relying_party

        auth = settings.auth
        check_provider(auth, self.name)
        check_recovery(auth, allowed=("oidc", "administrator", "application"))
        check_registration(auth, allowed=("oidc", "disabled"), required=False)
        check_oidc_only(settings, self.name)
        check_relying_party(auth)

    def extension(self, settings: ModeSettings) -> OidcPasskey:  # type: ignore[override]
        from fw.auth.modes.oidc_passkey.extension import OidcPasskey

        return OidcPasskey(settings)


OIDC_PASSKEY = OidcPasskeyMode()
