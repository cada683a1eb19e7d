"""``auth.mode = "oidc_passkey"``: the account comes from an OpenID provider, daily sign-in is a passkey.

Composition only: ``oidc_only``'s login, callback and logout (the account, and recovery when
``auth.recovery.policy = "oidc"``) plus the passkey endpoints of :mod:`fw.auth.passkeys`.
"""

from fw.auth.modes.oidc_passkey.extension import OidcPasskey
from fw.auth.modes.oidc_passkey.mode import OIDC_PASSKEY, OidcPasskeyMode

__all__ = ["OIDC_PASSKEY", "OidcPasskey", "OidcPasskeyMode"]
