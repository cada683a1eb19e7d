"""Authentication: five modes, sessions, guards, revocation, account seams."""

# --- browser sessions and account seams ---
from fw.auth.accounts import (
    Account,
    Identity,
    forget_account,
    set_account_lookup,
    set_account_resolver,
)
from fw.auth.sessions.user import User, user

# --- bearer tokens (jwt_only) and revocation ---
# isort: split
from fw.auth.caller import Caller, bearer
from fw.auth.revocation import (
    reinstate_subject,
    reinstate_token,
    revoke_subject,
    revoke_token,
    subject_revoked,
    token_revoked,
)

# --- what auth tells the configuration layer: the tables the chosen auth.mode leaves unread
# (left out of the startup summary), its advisories (fw doctor, summary) and removed keys ---
# isort: split
from fw.auth import advisories as _advisories
from fw.auth import mode_rules as _mode_rules
from fw.configuration.activity import register_inactive_hook as _register_inactive_hook

_register_inactive_hook(_mode_rules.unread_tables)
_advisories.register()

__all__ = [
    "Account",
    "Caller",
    "Identity",
    "User",
    "bearer",
    "forget_account",
    "reinstate_subject",
    "reinstate_token",
    "revoke_subject",
    "revoke_token",
    "set_account_lookup",
    "set_account_resolver",
    "subject_revoked",
    "token_revoked",
    "user",
]
