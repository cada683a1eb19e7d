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
