"""Startup rules for ``[auth.passkey]``, ``[auth.recovery]``, ``[auth.registration]`` and
``[auth.bootstrap]``, shared by ``oidc_passkey`` and ``passkey_only``: each broken rule is one
:class:`fw.StartupError` naming the key, the value and the fix."""

from __future__ import annotations

from fw.auth.modes.rules import check_required, shown
from fw.auth.settings import AuthSettings
from fw.auth.webauthn import RelyingParty, relying_party_problems
from fw.errors import StartupError


def relying_party(auth: AuthSettings) -> RelyingParty:
    """The relying party ``[auth.passkey]`` describes."""
    passkey = auth.passkey
    return RelyingParty(passkey.rp_id, passkey.rp_name, tuple(passkey.origins), passkey.user_verification)


def check_relying_party(auth: AuthSettings) -> None:
    """``[auth.passkey]``: a usable mount path, RP ID, name and origins (DESIGN 9.1)."""
    passkey = auth.passkey
    path = passkey.path
    if not path.startswith("/") or "//" in path or "\\" in path or path == "/":
        raise StartupError(
            "auth.passkey.path", path, "use a root-relative path such as /auth/passkey, without // or \\"
        )
    check_required(passkey.rp_id, "auth.passkey.rp_id")
    check_required(passkey.rp_name, "auth.passkey.rp_name")
    check_required(passkey.origins, "auth.passkey.origins")
    for problem in relying_party_problems(relying_party(auth)):
        key = f"auth.passkey.{problem.field}"
        value = passkey.origins if problem.field == "origins" else getattr(passkey, problem.field)
        raise StartupError(key, value, problem.message)


def check_recovery(auth: AuthSettings, *, allowed: tuple[str, ...]) -> None:
    """``auth.recovery.policy`` set explicitly, to one of the values this mode can honour."""
    policy = auth.recovery.policy
    check_required(policy, "auth.recovery.policy")
    if policy not in allowed:
        raise StartupError(
            "auth.recovery.policy",
            policy,
            f"auth.mode = {auth.mode} cannot recover through {policy}; use {' or '.join(allowed)}",
        )


def check_registration(auth: AuthSettings, *, allowed: tuple[str, ...], required: bool) -> None:
    """``auth.registration.policy``: required where the mode has no natural default."""
    policy = auth.registration.policy
    if required:
        check_required(policy, "auth.registration.policy")
    if policy and policy not in allowed:
        raise StartupError(
            "auth.registration.policy",
            policy,
            f"auth.mode = {auth.mode} cannot register through {policy}; use {', '.join(allowed)}",
        )


def check_bootstrap(auth: AuthSettings) -> None:
    """``[auth.bootstrap]``: positive lifetimes and a positive number of attempts."""
    bootstrap = auth.bootstrap
    for name in ("issue_ttl", "enrollment_ttl"):
        value = getattr(bootstrap, name)
        if value.total_seconds() <= 0:
            raise StartupError(
                f"auth.bootstrap.{name}", shown(value), "must be a positive duration such as 10m"
            )
    if bootstrap.max_attempts <= 0:
        raise StartupError("auth.bootstrap.max_attempts", bootstrap.max_attempts, "must be 1 or more")
