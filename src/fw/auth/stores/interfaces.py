"""The small async interfaces behind which every auth record lives.

Policies (accounts, admission, revocation, sessions, passkeys) talk only to these; each
storage engine implements them in one module (:mod:`fw.auth.stores.rdb`, ``redis``, ``cookie``).
Every method raises :class:`~fw.auth.stores.errors.StoreUnavailable` when the store cannot
answer, and decides expiry when it reads a record (a TTL the engine offers only deletes).
The contract tests in ``tests/stores`` hold every backend to these descriptions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from fw.auth.stores.records import (
    AccountLink,
    BootstrapRecord,
    PasskeyCredential,
    RecordKind,
    RevocationEntries,
    RevocationKind,
    StoredAccount,
)
from fw.auth.stores.tokens import Record


class AccountStore(Protocol):
    """fw's own accounts, used when the application registers no account seams."""

    async def resolve(self, link: AccountLink, *, create: bool, active: bool = True) -> StoredAccount | None:
        """The account linked to (issuer, claim value), its name and e-mail refreshed.

        Unknown: created (``active`` as given) when ``create``, else ``None``. Two concurrent
        first sign-ins of one identity end with one account.
        """
        ...

    async def get(self, account_id: str) -> StoredAccount | None: ...

    async def set_active(self, account_id: str, active: bool) -> bool:
        """Suspend or reinstate; ``False`` when there is no such account."""
        ...


class AllowListStore(Protocol):
    """The allow-list behind admission ``registered``: (issuer, claim name, value) entries."""

    async def contains_any(self, issuer: str, pairs: Sequence[tuple[str, str]]) -> bool:
        """Whether any (claim name, value) pair is listed for ``issuer``."""
        ...

    async def add(self, issuer: str, claim: str, value: str, note: str = "") -> None:
        """List an entry; adding it twice is harmless."""
        ...

    async def remove(self, issuer: str, claim: str, value: str) -> bool:
        """Unlist an entry; whether it existed."""
        ...


class RevocationStore(Protocol):
    """Revocation entries scoped by issuer, each living ``lifetime`` after its stamp."""

    async def put(
        self, issuer: str, kind: RevocationKind, key: str, note: str, lifetime: timedelta
    ) -> datetime:
        """Create or re-stamp an entry now; returns the stamp. Drops entries whose time is over."""
        ...

    async def remove(self, issuer: str, kind: RevocationKind, key: str) -> bool: ...

    async def stamp(self, issuer: str, kind: RevocationKind, key: str) -> datetime | None:
        """The stamp of an unexpired entry, else ``None``."""
        ...

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> RevocationEntries:
        """Both entries for one token in a single round trip (``None`` asks for nothing)."""
        ...

    async def clean(self) -> int:
        """Delete expired entries; how many went."""
        ...


class SessionStore(Protocol):
    """Session records keyed by what the cookie carries; ``expires_at`` is a UNIX time."""

    name: str

    async def save(self, record: Record, expires_at: float) -> str:
        """Create a record; returns the cookie value."""
        ...

    async def load(self, value: str) -> Record | None:
        """Read the record for a cookie value; ``None`` for unknown, expired, forged or malformed."""
        ...

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        """Touch or rewrite an existing record; returns the (possibly rotated) cookie value."""
        ...

    async def delete(self, value: str) -> None:
        """Destroy one session."""
        ...

    async def delete_account(self, account_id: str) -> int:
        """Destroy every session of an account; how many went.

        A backend that keeps nothing server-side (``cookie``) cannot reach copies a browser
        holds and answers 0: the account re-read ends those sessions instead.
        """
        ...

    async def delete_marked(self, mark: str) -> int:
        """Destroy every session whose record lists ``mark`` in its ``marks``; how many went.

        Marks are short opaque strings (at most 64 characters) a policy writes into a record
        when it starts the session (:mod:`fw.auth.sessions.marks`: a digest of the provider's
        session ID or subject), so a back-channel logout can find sessions it holds no cookie of.
        ``cookie`` keeps nothing server-side and answers 0; browser modes refuse to combine it
        with back-channel logout.
        """
        ...

    async def shared_key(self, offer: bytes | None = None) -> bytes:
        """32 random bytes every app process sharing this backend agrees on (seals login state).

        Created by the first process that asks and kept by the backend itself, so scaling out
        needs no extra secret in the configuration. ``offer`` (32 bytes) is what the backend
        keeps when it holds no key (a process offering the key it already uses, after the
        backend lost it); without one it keeps fresh random bytes. A key the backend holds is
        never replaced.
        """
        ...

    async def check(self) -> None:
        """Raise :class:`fw.StartupError` when the backend is unusable (startup precondition)."""
        ...

    async def close(self) -> None: ...


class CeremonyStore(Protocol):
    """Short-lived records of a ceremony in progress (a passkey challenge), each taken once."""

    async def put(self, key: str, record: dict[str, Any], expires_at: datetime) -> bool:
        """Store unless an unexpired record holds ``key``; whether it was stored."""
        ...

    async def take(self, key: str) -> dict[str, Any] | None:
        """Remove and return the unexpired record; of concurrent takes exactly one gets it."""
        ...


class PasskeyStore(Protocol):
    """Registered passkeys, looked up by credential ID at sign-in and listed per account."""

    async def add(self, credential: PasskeyCredential) -> bool:
        """Store a new credential; ``False`` when its credential ID is already registered."""
        ...

    async def by_account(self, account_id: str) -> list[PasskeyCredential]:
        """The account's credentials, oldest first."""
        ...

    async def get(self, credential_id: bytes) -> PasskeyCredential | None: ...

    async def remove(self, account_id: str, credential_id: bytes) -> bool:
        """Delete one of the account's credentials; whether it existed."""
        ...

    async def record_use(
        self, credential_id: bytes, *, sign_count: int, backed_up: bool, used_at: datetime
    ) -> bool:
        """Record a verified sign-in by a conditional write.

        Succeeds when the new sign count is higher than the stored one, or both are 0 (synced
        passkeys do not count); otherwise nothing changes and the answer is ``False``: the count
        is never lowered, and an equal non-zero count means a possibly cloned authenticator.
        """
        ...


class BootstrapStore(Protocol):
    """One-time credentials for enrolling a first (or recovery) passkey (``passkey_only``)."""

    async def create(self, record: BootstrapRecord) -> None:
        """Store a record; it replaces an earlier one of the same login ID."""
        ...

    async def get(self, login_id: str) -> BootstrapRecord | None:
        """The unexpired record, else ``None``."""
        ...

    async def spend_attempt(self, login_id: str) -> bool:
        """Use one attempt of an unexpired, unredeemed record by a conditional write.

        ``False`` when none is left (or there is no such record): concurrent guesses cannot
        spend more attempts than were granted.
        """
        ...

    async def redeem(self, login_id: str, enrollment_expires_at: datetime) -> bool:
        """Mark an unexpired, unredeemed record redeemed; it then expires at the earlier of its
        own expiry and ``enrollment_expires_at``. Of concurrent redemptions exactly one succeeds.
        """
        ...

    async def enroll(self, login_id: str, credential: PasskeyCredential) -> bool:
        """In one atomic step: spend the redeemed record, store the first credential and
        activate the record's account. ``False`` (and nothing changed) when the record is not
        redeemed, expired, already spent, of another account, or the credential ID is taken.
        """
        ...


class AuthStore(Protocol):
    """Every record ``auth.backend`` keeps, behind one connection to one engine."""

    name: str

    @property
    def accounts(self) -> AccountStore: ...
    @property
    def allowlist(self) -> AllowListStore: ...
    @property
    def revocations(self) -> RevocationStore: ...
    @property
    def ceremonies(self) -> CeremonyStore: ...
    @property
    def passkeys(self) -> PasskeyStore: ...
    @property
    def bootstrap(self) -> BootstrapStore: ...

    async def require(self, kinds: Iterable[RecordKind]) -> None:
        """Refuse to start (:class:`fw.StartupError`) when the store is unreachable or a kind of
        record has nowhere to live (a table not migrated: the message names ``fw migrate``)."""
        ...

    def sessions(self) -> SessionStore:
        """Sessions kept in this same store (``session.backend`` naming the ``auth.backend`` engine)."""
        ...

    async def close(self) -> None: ...
