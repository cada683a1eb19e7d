"""The framework's relational tables, as SQLAlchemy Core metadata.

The migrations create them; :mod:`fw.auth.stores.rdb` builds its queries from these objects.
Timestamps are stored in UTC; SQLite hands them back naive, which :func:`utc` repairs.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

METADATA = MetaData()

# The tables below are alike in shape (a name, columns, a key, an expiry index) on purpose: each is
# the schema the migrations create, spelled out whole so that it reads and diffs like the migration
# that made it; a helper adding the common columns would hide that.

#: Revocation entries (``jwt_only``): ``kind`` is ``token`` (key = jti) or ``subject`` (key = identity).
REVOCATIONS = Table(
    "fw_revocations",
    METADATA,
    Column("issuer", String(1024), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("key", String(1024), nullable=False),
    Column("stamp", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("note", Text, nullable=False, default=""),
    PrimaryKeyConstraint("issuer", "kind", "key", name="fw_revocations_pk"),
    Index("fw_revocations_expires_at", "expires_at"),
)

#: Admission ``registered``: identities allowed in, as (issuer, claim name, expected value).
ALLOWLIST = Table(
    "fw_allowlist",
    METADATA,
    Column("issuer", String(1024), nullable=False),
    Column("claim", String(256), nullable=False),
    Column("value", String(1024), nullable=False),
    Column("note", Text, nullable=False, default=""),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("issuer", "claim", "value", name="fw_allowlist_pk"),
)

#: Browser sessions: one row per session under the SHA-256 digest of its cookie token.
SESSIONS = Table(
    "fw_sessions",
    METADATA,
    Column("token_hash", String(64), primary_key=True),
    Column("data", Text, nullable=False),
    Column("account_id", String(256), nullable=False, default=""),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Index("fw_sessions_expires_at", "expires_at"),
    Index("fw_sessions_account_id", "account_id"),
)

#: What a session can be found by besides its token: opaque marks (digests of the provider's
#: session ID or subject) written at sign-in, so a back-channel logout reaches every session of
#: one provider session. A row outliving its session is harmless and purged with the sessions.
SESSION_MARKS = Table(
    "fw_session_marks",
    METADATA,
    Column("mark", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("mark", "token_hash", name="fw_session_marks_pk"),
    Index("fw_session_marks_expires_at", "expires_at"),
)

#: fw's own accounts, linked by (issuer, identity-claim value), never by e-mail.
ACCOUNTS = Table(
    "fw_accounts",
    METADATA,
    Column("account_id", String(64), primary_key=True),
    Column("issuer", String(1024), nullable=False),
    Column("claim_value", String(1024), nullable=False),
    Column("display_name", String(512), nullable=False, default=""),
    Column("email", String(512), nullable=False, default=""),
    Column("active", Boolean, nullable=False, default=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("issuer", "claim_value", name="fw_accounts_link"),
)

#: Ceremonies in progress (passkey challenges): taken once, dead after ``expires_at``.
CEREMONIES = Table(
    "fw_ceremonies",
    METADATA,
    Column("key", String(256), primary_key=True),
    Column("data", Text, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Index("fw_ceremonies_expires_at", "expires_at"),
)

#: Registered passkeys; the credential ID is kept as unpadded base64url text.
PASSKEYS = Table(
    "fw_passkeys",
    METADATA,
    Column("credential_id", String(1400), primary_key=True),
    Column("account_id", String(256), nullable=False),
    Column("public_key", LargeBinary, nullable=False),
    Column("sign_count", BigInteger, nullable=False),
    Column("user_handle", LargeBinary, nullable=False),
    Column("transports", Text, nullable=False, default=""),
    Column("backup_eligible", Boolean, nullable=False, default=False),
    Column("backed_up", Boolean, nullable=False, default=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True), nullable=True),
    Index("fw_passkeys_account_id", "account_id"),
)

#: One-time bootstrap credentials (``passkey_only``): a digest of the secret, never the secret.
BOOTSTRAP = Table(
    "fw_bootstrap",
    METADATA,
    Column("login_id", String(256), primary_key=True),
    Column("account_id", String(256), nullable=False),
    Column("purpose", String(32), nullable=False),
    Column("secret_digest", LargeBinary, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("attempts_left", Integer, nullable=False),
    Column("redeemed", Boolean, nullable=False, default=False),
    Index("fw_bootstrap_expires_at", "expires_at"),
)


def utc(value: datetime) -> datetime:
    """A stored timestamp as an aware UTC datetime (SQLite returns naive values)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
