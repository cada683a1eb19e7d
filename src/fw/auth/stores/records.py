"""The records auth stores exchange with the policies that use them.

Plain frozen dataclasses: a store never hands out its rows or documents, so a policy reads
the same shape whichever engine keeps it. Times are aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeVar

T = TypeVar("T")

#: What a revocation entry is keyed by: a token's ``jti`` or an identity (``iat`` compared).
RevocationKind = Literal["token", "subject"]

#: The kinds of record an auth store keeps; a backend checks at startup that each one it is
#: asked for has somewhere to live (a migrated table, a collection).
#: ``session_marks`` is asked for only when sessions must be found by provider session
#: (back-channel logout); engines keeping every kind in one place need nothing for it.
RecordKind = Literal[
    "accounts",
    "allowlist",
    "revocations",
    "sessions",
    "session_marks",
    "ceremonies",
    "passkeys",
    "bootstrap",
]


@dataclass(frozen=True, slots=True)
class AccountLink:
    """Who signed in: the link (issuer, identity-claim value) and the names given this time."""

    issuer: str
    claim_value: str
    display_name: str = ""
    email: str = ""


# Alike in shape only to other frozen records (fw.configuration.schema.Loader): field lists.
@dataclass(frozen=True, slots=True)
class StoredAccount:
    """One account of fw's own account store, linked by (issuer, identity-claim value)."""

    account_id: str
    issuer: str
    claim_value: str
    display_name: str = ""
    email: str = ""
    active: bool = True


@dataclass(frozen=True, slots=True)
class RevocationEntries:
    """What the store holds for one token: the stamp of its jti entry and of its subject entry."""

    token: datetime | None
    subject: datetime | None


@dataclass(frozen=True, slots=True)
class PasskeyCredential:
    """A registered WebAuthn credential; ``sign_count`` only ever moves up."""

    credential_id: bytes
    account_id: str
    public_key: bytes
    sign_count: int
    #: The WebAuthn user handle the account was registered under (``user.id``).
    user_handle: bytes
    created_at: datetime
    transports: tuple[str, ...] = ()
    backup_eligible: bool = False
    backed_up: bool = False
    last_used_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class BootstrapRecord:
    """A one-time credential that lets a person enrol a first (or recovery) passkey.

    Only a digest of the secret is kept. ``redeemed`` turns true once the secret was shown
    and accepted; the record is spent by the enrollment that stores the credential.
    """

    login_id: str
    account_id: str
    purpose: str
    secret_digest: bytes
    created_at: datetime
    expires_at: datetime
    attempts_left: int
    redeemed: bool = False


def sign_count_condition(new: int, equal: Callable[[int], T], below: Callable[[int], T]) -> T:
    """The WebAuthn sign-count rule, written once for every store: which condition the stored
    count must meet for a verified sign-in reporting ``new`` to be recorded.

    The count moves up, or 0 stays 0 (synced passkeys do not count): never down, and never an
    equal non-zero count (a possibly cloned authenticator). A store hands over how it writes the
    two comparisons on the stored count (a SQL clause, a DynamoDB condition expression, a Python
    comparison) and writes the result conditionally: ``equal(0)`` when ``new`` is 0, else
    ``below(new)``.
    """
    return equal(0) if new == 0 else below(new)


def sign_count_accepts(stored: int, new: int) -> bool:
    """:func:`sign_count_condition` on a count already read (a store writing inside a transaction)."""
    return sign_count_condition(new, stored.__eq__, stored.__lt__)
