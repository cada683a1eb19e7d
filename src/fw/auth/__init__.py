"""Authentication: modes registered in one registry, sessions, guards, revocation, account seams."""

# --- browser sessions and account seams ---
from fw.auth.accounts import (
    Account,
    Identity,
    forget_account,
    set_account_lookup,
    set_account_resolver,
)
from fw.auth.browser.user import User, user

# --- assurance: guards demanding a recent proof, and the requirements they take ---
# isort: split
from fw.auth.assurance.guards import StepUpRequired, ensure, ensure_api
from fw.auth.assurance.requirements import Requirement, confirmed, max_age, policy

# --- assurance: the remembered last visitor ([auth.assurance.hint]) ---
# isort: split
from fw.auth.assurance.hint import RememberedVisitor, mask_identifier, remembered

# --- bearer tokens (jwt_only) and revocation ---
# isort: split
from fw.auth.caller import Caller, Principal, bearer
from fw.auth.revocation import (
    reinstate_subject,
    reinstate_token,
    revoke_subject,
    revoke_token,
    subject_revoked,
    token_revoked,
)

# --- passkeys (oidc_passkey, passkey_only): bootstrap credentials, a settings page's calls ---
# isort: split
from fw.auth.passkeys.calls import (
    BootstrapCredential,
    Passkey,
    issue_bootstrap_credential,
    passkeys,
    remove_passkey,
)

# --- modes: the ones fw ships are registered by fw.auth.modes; applications add theirs ---
# isort: split
from fw.auth.modes import registry as _registry
from fw.auth.modes.base import Mode, ModeSettings
from fw.auth.modes.registry import find_mode, register_mode

# --- what auth tells the configuration layer: the tables the chosen auth.mode leaves unread
# (left out of the startup summary), its advisories (fw doctor, summary) and removed keys ---
# isort: split
import fw.auth.advisories as _advisories
from fw.configuration.activity import register_inactive_hook as _register_inactive_hook

_register_inactive_hook(_registry.unread_tables)
_advisories.register()

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
