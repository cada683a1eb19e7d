"""The seams between a verified identity and the application's accounts.

``set_account_resolver(fn)`` maps a verified identity to an account (creating one when
``identity.create`` is true); ``set_account_lookup(fn)`` answers "does this account still exist,
and is it active?" when a session is re-read. Both may be sync or async. Without them fw uses
its own ``fw_accounts`` table. The link is always (issuer, identity-claim value), never e-mail.
"""

from __future__ import annotations

import inspect
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeAlias

from sqlalchemy import Boolean, Column, DateTime, String, Table, UniqueConstraint, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from fw.rdb.engine import STORE_ERRORS
from fw.rdb.tables import METADATA

#: A logged-in request re-reads its account at most this often (seconds), per account and process.
REREAD_INTERVAL = 30.0

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


@dataclass(frozen=True)
class Identity:
    """A verified identity: issuer, the identity claim's name and value, and every verified claim."""

    issuer: str
    claim: str
    value: str
    claims: dict[str, Any] = field(default_factory=dict)
    #: True when the resolver may create an account for an unknown identity (auto_provision).
    create: bool = True

    @property
    def display_name(self) -> str:
        for name in ("name", "preferred_username", "nickname"):
            value = self.claims.get(name)
            if isinstance(value, str) and value:
                return value
        return ""

    @property
    def email(self) -> str:
        value = self.claims.get("email")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Account:
    """An application account as fw sees it. ``active = False`` ends its sessions (suspension)."""

    account_id: str
    display_name: str = ""
    email: str = ""
    active: bool = True


class AccountStoreUnavailable(Exception):
    """The account store could not answer; the request gets a 503."""


Resolver: TypeAlias = Callable[[Identity], Account | Awaitable[Account | None] | None]
Lookup: TypeAlias = Callable[[str], Account | Awaitable[Account | None] | None]

_resolver: Resolver | None = None
_lookup: Lookup | None = None
_last_read: dict[str, float] = {}


def set_account_resolver(fn: Resolver | None) -> None:
    """Map verified identities to accounts; return ``None`` to refuse the identity."""
    global _resolver
    _resolver = fn


def set_account_lookup(fn: Lookup | None) -> None:
    """Look an account up by id; return ``None`` when it was deleted, or an inactive account."""
    global _lookup
    _lookup = fn


def forget_account(account_id: str) -> None:
    """Make the next request of this account re-read it (for example right after suspending it)."""
    _last_read.pop(account_id, None)


def reread_due(account_id: str) -> bool:
    last = _last_read.get(account_id)
    return last is None or time.monotonic() - last >= REREAD_INTERVAL


def mark_read(account_id: str, now: float | None = None) -> None:
    """Record a re-read at ``now`` (default: the present); a future ``now`` postpones the next one."""
    _last_read[account_id] = now if now is not None else time.monotonic()


async def _call(fn: Callable[[Any], Any], argument: Any) -> Account | None:
    try:
        result = fn(argument)
        if inspect.isawaitable(result):
            result = await result
    except AccountStoreUnavailable:
        raise
    except Exception as error:
        raise AccountStoreUnavailable(f"{type(error).__name__}: {error}") from error
    if result is not None and not isinstance(result, Account):
        raise TypeError(f"an account resolver or lookup must return fw.auth.Account or None, not {result!r}")
    return result


class AccountTable:
    """fw's own accounts (``fw_accounts``), used when the application registers no seams."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def resolve(self, identity: Identity) -> Account | None:
        query = select(ACCOUNTS).where(
            ACCOUNTS.c.issuer == identity.issuer, ACCOUNTS.c.claim_value == identity.value
        )
        try:
            async with self.engine.begin() as conn:
                row = (await conn.execute(query)).first()
                if row is not None:
                    changes = {"display_name": identity.display_name, "email": identity.email}
                    if changes != {"display_name": row.display_name, "email": row.email}:
                        await conn.execute(
                            update(ACCOUNTS).where(ACCOUNTS.c.account_id == row.account_id).values(**changes)
                        )
                    return Account(row.account_id, identity.display_name, identity.email, bool(row.active))
                if not identity.create:
                    return None
                account_id = uuid.uuid4().hex
                await conn.execute(
                    insert(ACCOUNTS).values(
                        account_id=account_id,
                        issuer=identity.issuer,
                        claim_value=identity.value,
                        display_name=identity.display_name,
                        email=identity.email,
                        active=True,
                        created_at=datetime.now(UTC),
                    )
                )
                return Account(account_id, identity.display_name, identity.email)
        except STORE_ERRORS as error:
            raise AccountStoreUnavailable(str(error)) from None

    async def lookup(self, account_id: str) -> Account | None:
        try:
            async with self.engine.connect() as conn:
                row = (
                    await conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.account_id == account_id))
                ).first()
        except STORE_ERRORS as error:
            raise AccountStoreUnavailable(str(error)) from None
        if row is None:
            return None
        return Account(row.account_id, row.display_name, row.email, bool(row.active))

    async def set_active(self, account_id: str, active: bool) -> None:
        """Suspend (``False``) or reinstate (``True``) an account; sessions notice at their next re-read."""
        async with self.engine.begin() as conn:
            await conn.execute(
                update(ACCOUNTS).where(ACCOUNTS.c.account_id == account_id).values(active=active)
            )
        forget_account(account_id)


async def resolve_account(identity: Identity, default: AccountTable | None) -> Account | None:
    """The account for a verified identity, through the registered resolver or the default table."""
    if _resolver is not None:
        return await _call(_resolver, identity)
    if default is None:
        raise AccountStoreUnavailable("no account resolver is registered and no account table is configured")
    return await default.resolve(identity)


async def lookup_account(account_id: str, default: AccountTable | None) -> Account | None:
    if _lookup is not None:
        return await _call(_lookup, account_id)
    if _resolver is not None:
        # An application resolver without a lookup: nothing to re-read, the session summary stands.
        return Account(account_id)
    if default is None:
        raise AccountStoreUnavailable("no account lookup is registered and no account table is configured")
    return await default.lookup(account_id)
