"""The passkey calls an application makes (no endpoint): issue a bootstrap credential, list and
remove an account's passkeys. Like the revocation calls they act on the running App's store (or
the one named by ``app=``), else on the configured store from a management script.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from fw.auth.passkeys.signin import PASSKEY_ISSUER
from fw.auth.runtime import auth_for_call
from fw.auth.stores.records import AccountLink, BootstrapRecord
from fw.base64url import decode, encode

Purpose = Literal["initial_passkey", "recovery_passkey"]
PURPOSES: tuple[str, ...] = ("initial_passkey", "recovery_passkey")
#: Login IDs longer than this are refused (they are typed, and keyed on).
MAX_LOGIN_ID = 256


@dataclass(frozen=True, slots=True)
class BootstrapCredential:
    """What to hand to the person, once: only a digest of ``secret`` is stored."""

    login_id: str
    secret: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Passkey:
    """One registered passkey, for a settings page. ``credential_id`` is unpadded Base64url;
    ``backed_up``: a synced passkey (its copy lives in a cloud keychain)."""

    credential_id: str
    created_at: datetime
    last_used_at: datetime | None
    backed_up: bool


def secret_digest(secret: str) -> bytes:
    """What the store keeps of a bootstrap secret (the secret is 256 random bits: one hash suffices)."""
    return hashlib.sha256(secret.encode()).digest()


async def issue_bootstrap_credential(
    login_id: str,
    *,
    account_id: str | None = None,
    purpose: Purpose = "initial_passkey",
    app: object | None = None,
) -> BootstrapCredential:
    """Issue a login ID and one-time secret that enrol one passkey (``passkey_only`` only).

    Without ``account_id`` the account is fw's own one linked to ``login_id``: created inactive
    for ``initial_passkey`` (the first enrollment activates it), required to exist for
    ``recovery_passkey``. A new credential for the same login ID replaces an unredeemed one.
    """
    if purpose not in PURPOSES:
        raise ValueError(f"purpose must be one of {', '.join(PURPOSES)}, not {purpose!r}")
    if not login_id or len(login_id) > MAX_LOGIN_ID or not login_id.isprintable():
        raise ValueError(f"a login ID is 1 to {MAX_LOGIN_ID} printable characters")
    async with auth_for_call(app) as running:
        auth = running.auth
        if auth is None or not auth.enabled or auth.mode != "passkey_only":
            has = "auth.enabled = false" if auth is None or not auth.enabled else f"auth.mode = {auth.mode}"
            raise RuntimeError(
                f"bootstrap credentials exist only with auth.mode = passkey_only; the configuration has {has}"
            )
        if purpose == "initial_passkey" and auth.registration.policy == "disabled":
            raise RuntimeError(
                "auth.registration.policy = disabled: no new accounts are enrolled; "
                'issue purpose="recovery_passkey" for an existing account'
            )
        store = running.store
        if running.app is None:  # a store opened for this call: tables not migrated say so, not SQL
            await store.require(("accounts", "bootstrap"))
        if account_id is None:
            link = AccountLink(PASSKEY_ISSUER, login_id, display_name=login_id)
            account = await store.accounts.resolve(link, create=purpose == "initial_passkey", active=False)
            if account is None:
                raise LookupError(f"no account has the login ID {login_id!r}; issue an initial_passkey")
            account_id = account.account_id
        elif await store.accounts.get(account_id) is None:
            raise LookupError(f"no account has the ID {account_id!r}")
        secret = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        expires_at = now + auth.bootstrap.issue_ttl
        await store.bootstrap.create(
            BootstrapRecord(
                login_id=login_id,
                account_id=account_id,
                purpose=purpose,
                secret_digest=secret_digest(secret),
                created_at=now,
                expires_at=expires_at,
                attempts_left=auth.bootstrap.max_attempts,
            )
        )
    return BootstrapCredential(login_id, secret, expires_at)


async def passkeys(account_id: str, *, app: object | None = None) -> list[Passkey]:
    """The account's passkeys, oldest first."""
    async with auth_for_call(app) as running:
        stored = await running.store.passkeys.by_account(account_id)
    return [Passkey(encode(c.credential_id), c.created_at, c.last_used_at, c.backed_up) for c in stored]


async def remove_passkey(account_id: str, credential_id: str, *, app: object | None = None) -> bool:
    """Delete one of the account's passkeys (``credential_id`` as :func:`passkeys` lists it);
    whether it existed. Every process refuses it from its next sign-in on."""
    try:
        raw = decode(credential_id)
    except ValueError:
        return False
    async with auth_for_call(app) as running:
        return await running.store.passkeys.remove(account_id, raw)
