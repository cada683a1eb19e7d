"""Authentication: modes registered in one registry, sessions, guards, revocation, account seams.

Every public name is imported on first use (:func:`__getattr__`), not when the package is: the
facade imports :mod:`fw.auth.wiring` from here on every ``import fw``, and an application that
never touches authentication must not pay for the stores, SQLAlchemy, the token core or
``webauthn`` (DESIGN 10.1). The ``TYPE_CHECKING`` block says the same names to type checkers
and editors.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from fw.extras import extra_missing, pip_install

if TYPE_CHECKING:
    # --- browser sessions and account seams ---
    from fw.auth.accounts import (
        Account,
        Identity,
        forget_account,
        set_account_lookup,
        set_account_resolver,
    )

    # --- assurance: guards demanding a recent proof, the requirements they take, and the
    # remembered last visitor ([auth.assurance.hint]) ---
    from fw.auth.assurance.guards import StepUpRequired, ensure, ensure_api
    from fw.auth.assurance.hint import RememberedVisitor, mask_identifier, remembered
    from fw.auth.assurance.requirements import Requirement, confirmed, max_age, policy
    from fw.auth.browser.user import User, user

    # --- bearer tokens (jwt_only) and revocation ---
    from fw.auth.caller import Caller, Principal, bearer

    # --- modes: the ones fw ships are registered by fw.auth.modes; applications add theirs ---
    from fw.auth.modes.base import Mode, ModeSettings
    from fw.auth.modes.registry import find_mode, register_mode

    # --- passkeys (oidc_passkey, passkey_only): bootstrap credentials, a settings page's calls ---
    from fw.auth.passkeys.calls import (
        BootstrapCredential,
        Passkey,
        issue_bootstrap_credential,
        passkeys,
        remove_passkey,
    )
    from fw.auth.revocation import (
        reinstate_subject,
        reinstate_token,
        revoke_subject,
        revoke_token,
        subject_revoked,
        token_revoked,
    )

#: Public name -> the module defining it.
_EXPORTS = {
    **dict.fromkeys(
        ("Account", "Identity", "forget_account", "set_account_lookup", "set_account_resolver"),
        "fw.auth.accounts",
    ),
    **dict.fromkeys(("User", "user"), "fw.auth.browser.user"),
    **dict.fromkeys(("StepUpRequired", "ensure", "ensure_api"), "fw.auth.assurance.guards"),
    **dict.fromkeys(("Requirement", "confirmed", "max_age", "policy"), "fw.auth.assurance.requirements"),
    **dict.fromkeys(("RememberedVisitor", "mask_identifier", "remembered"), "fw.auth.assurance.hint"),
    **dict.fromkeys(("Caller", "Principal", "bearer"), "fw.auth.caller"),
    **dict.fromkeys(
        (
            "reinstate_subject",
            "reinstate_token",
            "revoke_subject",
            "revoke_token",
            "subject_revoked",
            "token_revoked",
        ),
        "fw.auth.revocation",
    ),
    **dict.fromkeys(
        ("BootstrapCredential", "Passkey", "issue_bootstrap_credential", "passkeys", "remove_passkey"),
        "fw.auth.passkeys.calls",
    ),
    **dict.fromkeys(("Mode", "ModeSettings"), "fw.auth.modes.base"),
    **dict.fromkeys(("find_mode", "register_mode"), "fw.auth.modes.registry"),
}

__all__ = [
    "Account",
    "BootstrapCredential",
    "Caller",
    "Identity",
    "Mode",
    "ModeSettings",
    "Passkey",
    "Principal",
    "RememberedVisitor",
    "Requirement",
    "StepUpRequired",
    "User",
    "bearer",
    "confirmed",
    "ensure",
    "ensure_api",
    "find_mode",
    "forget_account",
    "issue_bootstrap_credential",
    "mask_identifier",
    "max_age",
    "passkeys",
    "policy",
    "register_mode",
    "reinstate_subject",
    "reinstate_token",
    "remembered",
    "remove_passkey",
    "revoke_subject",
    "revoke_token",
    "set_account_lookup",
    "set_account_resolver",
    "subject_revoked",
    "token_revoked",
    "user",
]


def __getattr__(name: str) -> Any:
    """Import the module defining the public ``name`` and keep the value here for next time.

    A name whose code needs an extra that is not installed (the passkey calls need ``webauthn``)
    raises an ImportError naming the ``pip install`` that adds it.
    """
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fw.auth' has no attribute {name!r}")
    try:
        defining = importlib.import_module(module)
    except ModuleNotFoundError as error:
        extra = extra_missing(error)
        if extra is None:
            raise
        fix = f"fw.auth.{name} needs the {extra} extra: {pip_install(extra)}"
        raise ImportError(fix, name=error.name) from error
    value = getattr(defining, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """The type of this module, for one name only: ``fw.auth.passkeys`` is the public function,
    and a subpackage is called ``passkeys`` too. Importing that subpackage makes Python set the
    attribute on this module; this descriptor takes the assignment (the subpackage stays in
    ``sys.modules``) so the name keeps meaning the function, as it did when it was imported
    eagerly after the subpackage."""

    @property
    def passkeys(self) -> Any:
        return __getattr__("passkeys")

    @passkeys.setter
    def passkeys(self, value: Any) -> None:
        del value


sys.modules[__name__].__class__ = _Package
