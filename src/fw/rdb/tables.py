"""The framework's relational tables, as SQLAlchemy Core metadata.

The migrations create them; runtime code uses these objects to build queries. Timestamps are
stored in UTC; SQLite hands them back naive, which :func:`utc` repairs.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Index, MetaData, PrimaryKeyConstraint, String, Table, Text

METADATA = MetaData()

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


def utc(value: datetime) -> datetime:
    """A stored timestamp as an aware UTC datetime (SQLite returns naive values)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
