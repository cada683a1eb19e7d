"""Revocation lists for bearer tokens (``jwt_only``): by token (``jti``) and by subject (``iat``).

Entries are scoped by issuer and live ``max_token_lifetime`` after their stamp, after which
every token they could reject has expired anyway, so the store drops them. The check runs after
verification; with ``max_propagation_delay`` > 0 answers are cached in-process for that long.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from sqlalchemy import Select, and_, bindparam, delete, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from fw.auth.jwt.verifier import VerifiedToken
from fw.rdb.engine import STORE_ERRORS, StoreUnavailable, reader
from fw.rdb.runtime import engine_for_call
from fw.rdb.tables import REVOCATIONS, utc

logger = logging.getLogger("fw.auth.revocation")

Kind = Literal["token", "subject"]
REVOCATION_MODES = ("off", "token", "subject", "both")
ON_UNAVAILABLE = ("refuse", "admit")
CACHE_ENTRIES = 10_000


@dataclass(frozen=True, slots=True)
class Entries:
    """What the store holds for one token: the stamp of its jti entry and of its subject entry."""

    token: datetime | None
    subject: datetime | None


def _lookup_query(by_token: bool, by_subject: bool) -> Select[str, datetime]:
    wanted = []
    if by_token:
        wanted.append(and_(REVOCATIONS.c.kind == "token", REVOCATIONS.c.key == bindparam("token_id")))
    if by_subject:
        wanted.append(and_(REVOCATIONS.c.kind == "subject", REVOCATIONS.c.key == bindparam("subject")))
    return select(REVOCATIONS.c.kind, REVOCATIONS.c.stamp).where(
        REVOCATIONS.c.issuer == bindparam("issuer"), REVOCATIONS.c.expires_at > bindparam("now"), or_(*wanted)
    )


# Built once: the request path only binds values to a statement SQLAlchemy has compiled before.
_LOOKUPS = {(t, s): _lookup_query(t, s) for t in (True, False) for s in (True, False) if t or s}


class RevocationStore:
    """The relational revocation table; store failures surface as :class:`StoreUnavailable`."""

    def __init__(self, engine: AsyncEngine, entry_lifetime: timedelta) -> None:
        self.engine = engine
        self.entry_lifetime = entry_lifetime

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    @engine.setter
    def engine(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._reader = reader(engine)

    async def put(self, issuer: str, kind: Kind, key: str, note: str) -> datetime:
        stamp = datetime.now(UTC)
        row = {
            "issuer": issuer,
            "kind": kind,
            "key": key,
            "stamp": stamp,
            "expires_at": stamp + self.entry_lifetime,
            "note": note,
        }
        try:
            async with self.engine.begin() as conn:
                insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
                statement = insert(REVOCATIONS).values(**row)
                statement = statement.on_conflict_do_update(
                    index_elements=["issuer", "kind", "key"],
                    set_={"stamp": stamp, "expires_at": row["expires_at"], "note": note},
                )
                await conn.execute(statement)
                await conn.execute(delete(REVOCATIONS).where(REVOCATIONS.c.expires_at <= stamp))
        except STORE_ERRORS as error:
            raise StoreUnavailable(str(error)) from error
        return stamp

    async def remove(self, issuer: str, kind: Kind, key: str) -> bool:
        try:
            async with self.engine.begin() as conn:
                result = await conn.execute(
                    delete(REVOCATIONS).where(
                        REVOCATIONS.c.issuer == issuer, REVOCATIONS.c.kind == kind, REVOCATIONS.c.key == key
                    )
                )
                return bool(result.rowcount)
        except STORE_ERRORS as error:
            raise StoreUnavailable(str(error)) from error

    async def stamp(self, issuer: str, kind: Kind, key: str) -> datetime | None:
        now = datetime.now(UTC)
        query = select(REVOCATIONS.c.stamp).where(
            REVOCATIONS.c.issuer == issuer,
            REVOCATIONS.c.kind == kind,
            REVOCATIONS.c.key == key,
            REVOCATIONS.c.expires_at > now,
        )
        try:
            async with self.engine.connect() as conn:
                value = (await conn.execute(query)).scalar()
        except STORE_ERRORS as error:
            raise StoreUnavailable(str(error)) from error
        return utc(value) if value is not None else None

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> Entries:
        """Both entries for one token in a single round trip."""
        if token_id is None and subject is None:
            return Entries(None, None)
        query = _LOOKUPS[(token_id is not None, subject is not None)]
        params = {"issuer": issuer, "now": datetime.now(UTC), "token_id": token_id, "subject": subject}
        try:
            async with self._reader.connect() as conn:
                rows = (await conn.execute(query, params)).all()
        except STORE_ERRORS as error:
            raise StoreUnavailable(str(error)) from error
        found = {kind: utc(stamp) for kind, stamp in rows}
        return Entries(found.get("token"), found.get("subject"))

    async def clean(self) -> int:
        """Drop entries whose lifetime is over."""
        try:
            async with self.engine.begin() as conn:
                result = await conn.execute(
                    delete(REVOCATIONS).where(REVOCATIONS.c.expires_at <= datetime.now(UTC))
                )
                return int(result.rowcount or 0)
        except STORE_ERRORS as error:
            raise StoreUnavailable(str(error)) from error


class RevocationCheck:
    """The per-request question "is this verified token revoked?" for one mode and policy."""

    def __init__(
        self,
        store: RevocationStore,
        mode: str,
        *,
        on_unavailable: str = "refuse",
        max_propagation_delay: timedelta = timedelta(0),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.by_token = mode in ("token", "both")
        self.by_subject = mode in ("subject", "both")
        self.admit_when_unavailable = on_unavailable == "admit"
        self._delay = max_propagation_delay.total_seconds()
        self._clock = clock
        self._cache: OrderedDict[tuple[str | None, str | None], tuple[float, Entries]] = OrderedDict()
        self._last_outage_log = float("-inf")

    def forget(self) -> None:
        """Drop cached answers (a revocation made in this process is visible at once)."""
        self._cache.clear()

    async def revoked(self, token: VerifiedToken) -> bool:
        """True when the token must be refused. Raises :class:`StoreUnavailable` under ``refuse``."""
        if self.by_token and token.token_id is None:
            return True  # a token without jti cannot be looked up, so it cannot be trusted
        key = (token.token_id if self.by_token else None, token.identity if self.by_subject else None)
        entries = self._cached(key)
        if entries is None:
            try:
                entries = await self.store.lookup(token.issuer, key[0], key[1])
            except StoreUnavailable:
                if not self.admit_when_unavailable:
                    raise
                self._report_outage()
                return False
            self._remember(key, entries)
        if self.by_token and entries.token is not None:
            return True
        return (
            self.by_subject and entries.subject is not None and token.issued_at < entries.subject.timestamp()
        )

    def _cached(self, key: tuple[str | None, str | None]) -> Entries | None:
        if self._delay <= 0:
            return None
        hit = self._cache.get(key)
        if hit is None:
            return None
        if hit[0] <= self._clock():
            del self._cache[key]
            return None
        return hit[1]

    def _remember(self, key: tuple[str | None, str | None], entries: Entries) -> None:
        if self._delay <= 0:
            return
        self._cache[key] = (self._clock() + self._delay, entries)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)

    def _report_outage(self) -> None:
        now = self._clock()
        if now - self._last_outage_log >= 60:
            self._last_outage_log = now
            logger.error(
                "revocation store unavailable; admitting tokens without the revocation check "
                "(auth.jwt.revocation.on_unavailable = admit)"
            )


# Programmatic operations. The running App's store and checks are used when there is one in
# this event loop; otherwise a short-lived connection to the configured store.

_active: list[tuple[asyncio.AbstractEventLoop, RevocationStore, RevocationCheck | None]] = []


def activate(store: RevocationStore, check: RevocationCheck | None) -> None:
    _active.append((asyncio.get_running_loop(), store, check))


def deactivate(store: RevocationStore) -> None:
    _active[:] = [entry for entry in _active if entry[1] is not store]


def _local() -> tuple[RevocationStore, RevocationCheck | None] | None:
    loop = asyncio.get_running_loop()
    for owner, store, check in reversed(_active):
        if owner is loop:
            return store, check
    return None


def _configured_lifetime() -> timedelta:
    from fw import configuration
    from fw.settings import AuthSettings

    try:
        lifetime = configuration.config(AuthSettings).jwt.max_token_lifetime
    except LookupError:
        raise RuntimeError(
            "auth.jwt.max_token_lifetime is not configured; parse the configuration first"
        ) from None
    if lifetime <= timedelta(0):
        raise RuntimeError("auth.jwt.max_token_lifetime must be set to a positive duration")
    return lifetime


async def _put(issuer: str, kind: Kind, key: str, note: str) -> None:
    _require(issuer, key)
    local = _local()
    if local is not None:
        await local[0].put(issuer, kind, key, note)
        if local[1] is not None:
            local[1].forget()
        return
    async with engine_for_call() as engine:
        await RevocationStore(engine, _configured_lifetime()).put(issuer, kind, key, note)


async def _remove(issuer: str, kind: Kind, key: str) -> None:
    _require(issuer, key)
    local = _local()
    if local is not None:
        await local[0].remove(issuer, kind, key)
        if local[1] is not None:
            local[1].forget()
        return
    async with engine_for_call() as engine:
        await RevocationStore(engine, timedelta(0)).remove(issuer, kind, key)


async def _read(issuer: str, kind: Kind, key: str) -> tuple[bool, datetime | None]:
    _require(issuer, key)
    local = _local()
    if local is not None:
        stamp = await local[0].stamp(issuer, kind, key)
    else:
        async with engine_for_call() as engine:
            stamp = await RevocationStore(engine, timedelta(0)).stamp(issuer, kind, key)
    return stamp is not None, stamp


def _require(issuer: str, key: str) -> None:
    if not issuer or not key:
        raise ValueError("revocation needs a non-empty issuer and identifier")


async def revoke_token(issuer: str, token_id: str, note: str = "") -> None:
    """Reject the token with this ``jti`` from now on (succeeds for identifiers never seen)."""
    await _put(issuer, "token", token_id, note)


async def revoke_subject(issuer: str, identity_key: str, note: str = "") -> None:
    """Reject every token of this identity issued before now; tokens issued later pass."""
    await _put(issuer, "subject", identity_key, note)


async def reinstate_token(issuer: str, token_id: str) -> None:
    """Delete the token's entry; an unexpired token it rejected passes again."""
    await _remove(issuer, "token", token_id)


async def reinstate_subject(issuer: str, identity_key: str) -> None:
    """Delete the subject's entry."""
    await _remove(issuer, "subject", identity_key)


async def token_revoked(issuer: str, token_id: str) -> tuple[bool, datetime | None]:
    """(revoked, stamp) straight from the store, bypassing the per-request cache."""
    return await _read(issuer, "token", token_id)


async def subject_revoked(issuer: str, identity_key: str) -> tuple[bool, datetime | None]:
    """(revoked, stamp) straight from the store, bypassing the per-request cache."""
    return await _read(issuer, "subject", identity_key)
