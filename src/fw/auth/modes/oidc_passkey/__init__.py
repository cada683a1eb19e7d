"""``auth.mode = "oidc_passkey"``: the account comes from an OpenID provider, daily sign-in is a passkey.

Composition only: ``oidc_only``'s login, callback and logout (the account, and recovery when
``auth.recovery.policy = "oidc"``) plus the passkey endpoints of :mod:`fw.auth.passkeys`.

The mode object is imported with the package (registering the mode needs nothing more);
:class:`OidcPasskey`, the extension, on first use, so a project that selects another mode never loads it.
"""

from typing import TYPE_CHECKING, Any

from fw.auth.modes.oidc_passkey.mode import OIDC_PASSKEY, OidcPasskeyMode

if TYPE_CHECKING:
    from fw.auth.modes.oidc_passkey.extension import OidcPasskey

__all__ = ["OIDC_PASSKEY", "OidcPasskey", "OidcPasskeyMode"]


# Every mode package repeats these lines on purpose: the lazy import stays an import statement,
# which type checkers and tests/test_architecture.py (it reads imports with ast) see; a shared
# importlib helper would hide the edge from both.
def __getattr__(name: str) -> Any:
    if name == "OidcPasskey":
        from fw.auth.modes.oidc_passkey.extension import OidcPasskey

        return OidcPasskey
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
