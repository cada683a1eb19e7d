"""The ``rdb`` backend: every auth record in the framework's SQL tables, on SQLite or PostgreSQL.

SQLAlchemy Core on the async drivers; the tables are in :mod:`fw.rdb.tables` and created by
``fw migrate``. Every failure of the database, whichever path the statement took (through
SQLAlchemy, or beneath it in :mod:`fw.rdb.pointread`), becomes :class:`StoreUnavailable`; the
one list of them is :data:`fw.rdb.faults.STORE_ERRORS`. Conditional writes (take-once, sign
counts, bootstrap attempts) are single statements whose row count says whether they happened,
so concurrent processes cannot both win.
"""

from __future__ import annotations

import base64
import json
import os
import random
import time
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Executable, Row, Select, and_, bindparam, case, delete, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.fields import credential_fields, credential_from, credential_key
from fw.auth.stores.records import (
    AccountLink,
    BootstrapRecord,
    PasskeyCredential,
    RevocationEntries,
    RevocationKind,
    StoredAccount,
    sign_count_condition,
)
from fw.auth.stores.tokens import (
    SHARED_KEY_ID,
    Record,
    new_token,
    session_marks,
    token_digest,
    well_formed,
)
from fw.rdb.engine import DEFAULT_POOL_SIZE, create_engine, describe_error, reader, require_tables
from fw.rdb.faults import STORE_ERRORS
from fw.rdb.pointread import DirectReads, stored_time
from fw.rdb.tables import (
    ACCOUNTS,
    ALLOWLIST,
    BOOTSTRAP,
    CEREMONIES,
    PASSKEYS,
    REVOCATIONS,
    SESSION_MARKS,
    SESSIONS,
    utc,
)

#: Record kind (see :data:`~fw.auth.stores.records.RecordKind`) -> the table it lives in.
TABLES: dict[str, str] = {
    "accounts": ACCOUNTS.name,
    "allowlist": ALLOWLIST.name,
    "revocations": REVOCATIONS.name,
    "sessions": SESSIONS.name,
    "session_marks": SESSION_MARKS.name,
    "ceremonies": CEREMONIES.name,
    "passkeys": PASSKEYS.name,
    "bootstrap": BOOTSTRAP.name,
}

#: A row of any select.
AnyRow = Row[*tuple[Any, ...]]

_PURGE_CHANCE = 1 / 64
#: The shared key's row never expires, so the purge of expired sessions leaves it alone.
_NEVER = datetime(9999, 12, 31, tzinfo=UTC)


class _Answering:
    """Report an engine that did not answer as the one store error: ``with _answering():``.

    A class rather than a ``contextlib`` generator, whose generator and wrapper cost about a
    microsecond on every use; the per-request reads (a session, a bearer token's revocation
    entries) go through it too.
    """

    def __call__(self) -> _Answering:
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        if error is not None and isinstance(error, STORE_ERRORS):
            # The driver's class and first line only: SQLAlchemy's text of the error, and the
            # cause chained to it, carry the statement (and its parameters, account IDs and token
            # hashes, where an engine does not hide them).
            raise StoreUnavailable(describe_error(error)) from None


_answering = _Answering()


def _now() -> datetime:
    return datetime.now(UTC)


def _at(moment: datetime) -> datetime:
    """UTC for storage: SQLite keeps no offset, so every stored time must be in one zone."""
    return moment.astimezone(UTC)


def _insert(engine: AsyncEngine) -> Any:
    """The dialect's INSERT, which offers ON CONFLICT on both engines."""
    return postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert


async def _write(engine: AsyncEngine, *statements: Executable) -> int:
    """Statements in one transaction; how many rows the last one touched."""
    with _answering():
        async with engine.begin() as conn:
            for statement in statements:
                result = await conn.execute(statement)
    return int(result.rowcount or 0)


async def _first(engine: AsyncEngine, query: Executable) -> AnyRow | None:
    """The first row of a one-statement read (autocommit on PostgreSQL)."""
    with _answering():
        async with reader(engine).connect() as conn:
            return (await conn.execute(query)).first()


def _document(row: AnyRow | None) -> dict[str, Any] | None:
    """The JSON ``data`` of a row carrying ``expires_at``, unless missing or expired."""
    if row is None:
        return None
    return _unexpired(row.data, row.expires_at)


def _unexpired(data: str, expires_at: datetime | str) -> dict[str, Any] | None:
    """The JSON document ``data``, unless ``expires_at`` has passed."""
    if stored_time(expires_at) <= _now():
        return None
    document = json.loads(data)
    return document if isinstance(document, dict) else None


def _stored(row: AnyRow, link: AccountLink) -> StoredAccount:
    return StoredAccount(
        row.account_id, link.issuer, link.claim_value, link.display_name, link.email, bool(row.active)
    )


class RdbAccounts:
    """``fw_accounts``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def resolve(self, link: AccountLink, *, create: bool, active: bool = True) -> StoredAccount | None:
        linked = and_(ACCOUNTS.c.issuer == link.issuer, ACCOUNTS.c.claim_value == link.claim_value)
        names = {"display_name": link.display_name, "email": link.email}
        with _answering():
            for _ in range(2):
                try:
                    async with self.engine.begin() as conn:
                        row = (await conn.execute(select(ACCOUNTS).where(linked))).first()
                        if row is not None:
                            if (link.display_name, link.email) != (row.display_name, row.email):
                                mine = ACCOUNTS.c.account_id == row.account_id
                                await conn.execute(update(ACCOUNTS).where(mine).values(**names))
                            return _stored(row, link)
                        if not create:
                            return None
                        account_id = uuid.uuid4().hex
                        await conn.execute(
                            insert(ACCOUNTS).values(
                                account_id=account_id,
                                issuer=link.issuer,
                                claim_value=link.claim_value,
                                active=active,
                                created_at=_now(),
                                **names,
                            )
                        )
                        return StoredAccount(
                            account_id, link.issuer, link.claim_value, **names, active=active
                        )
                except IntegrityError:
                    continue  # a concurrent first sign-in created the account: read theirs
        raise StoreUnavailable("the account could neither be read nor created")

    async def get(self, account_id: str) -> StoredAccount | None:
        row = await _first(self.engine, select(ACCOUNTS).where(ACCOUNTS.c.account_id == account_id))
        return (
            _stored(row, AccountLink(row.issuer, row.claim_value, row.display_name, row.email))
            if row
            else None
        )

    async def set_active(self, account_id: str, active: bool) -> bool:
        mine = ACCOUNTS.c.account_id == account_id
        return bool(await _write(self.engine, update(ACCOUNTS).where(mine).values(active=active)))


class RdbAllowList:
    """``fw_allowlist``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def contains_any(self, issuer: str, pairs: Sequence[tuple[str, str]]) -> bool:
        if not pairs:
            return False
        condition = or_(*(and_(ALLOWLIST.c.claim == c, ALLOWLIST.c.value == v) for c, v in pairs))
        query = select(ALLOWLIST.c.claim).where(ALLOWLIST.c.issuer == issuer, condition).limit(1)
        return await _first(self.engine, query) is not None

    async def add(self, issuer: str, claim: str, value: str, note: str = "") -> None:
        row = {"issuer": issuer, "claim": claim, "value": value, "note": note, "created_at": _now()}
        await _write(self.engine, _insert(self.engine)(ALLOWLIST).values(**row).on_conflict_do_nothing())

    async def remove(self, issuer: str, claim: str, value: str) -> bool:
        entry = and_(ALLOWLIST.c.issuer == issuer, ALLOWLIST.c.claim == claim, ALLOWLIST.c.value == value)
        return bool(await _write(self.engine, delete(ALLOWLIST).where(entry)))


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


class RdbRevocations:
    """``fw_revocations``; :meth:`lookup` is on the request path and reads beneath SQLAlchemy."""

    def __init__(self, engine: AsyncEngine, direct: DirectReads | None = None) -> None:
        self._direct = direct
        self.engine = engine

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    @engine.setter
    def engine(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._reader = reader(engine)
        direct = self._direct if self._direct is not None and self._direct.engine is engine else None
        direct = direct or DirectReads(engine)
        self._lookups = {wanted: direct.statement(query) for wanted, query in _LOOKUPS.items()}

    async def put(
        self, issuer: str, kind: RevocationKind, key: str, note: str, lifetime: timedelta
    ) -> datetime:
        stamp = _now()
        expires_at = stamp + lifetime
        row = {
            "issuer": issuer,
            "kind": kind,
            "key": key,
            "stamp": stamp,
            "expires_at": expires_at,
            "note": note,
        }
        upsert = _insert(self.engine)(REVOCATIONS).values(**row)
        upsert = upsert.on_conflict_do_update(
            index_elements=["issuer", "kind", "key"],
            set_={"stamp": stamp, "expires_at": expires_at, "note": note},
        )
        await _write(self.engine, upsert, delete(REVOCATIONS).where(REVOCATIONS.c.expires_at <= stamp))
        return stamp

    async def remove(self, issuer: str, kind: RevocationKind, key: str) -> bool:
        entry = and_(REVOCATIONS.c.issuer == issuer, REVOCATIONS.c.kind == kind, REVOCATIONS.c.key == key)
        return bool(await _write(self.engine, delete(REVOCATIONS).where(entry)))

    async def stamp(self, issuer: str, kind: RevocationKind, key: str) -> datetime | None:
        query = select(REVOCATIONS.c.stamp).where(
            REVOCATIONS.c.issuer == issuer,
            REVOCATIONS.c.kind == kind,
            REVOCATIONS.c.key == key,
            REVOCATIONS.c.expires_at > _now(),
        )
        with _answering():
            async with self._reader.connect() as conn:
                value = (await conn.execute(query)).scalar()
        return utc(value) if value is not None else None

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> RevocationEntries:
        if token_id is None and subject is None:
            return RevocationEntries(None, None)
        query = self._lookups[(token_id is not None, subject is not None)]
        params = {"issuer": issuer, "now": _now(), "token_id": token_id, "subject": subject}
        with _answering():
            rows = await query.rows(params)
        found = {kind: stored_time(stamp) for kind, stamp in rows}
        return RevocationEntries(found.get("token"), found.get("subject"))

    async def clean(self) -> int:
        return await _write(self.engine, delete(REVOCATIONS).where(REVOCATIONS.c.expires_at <= _now()))


def _when(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


def _marks(record: Record) -> list[str]:
    """The record's ``marks`` (see :meth:`SessionStore.delete_marked`), deduplicated."""
    return sorted(session_marks(record))


_SESSION_LOAD = select(SESSIONS.c.data, SESSIONS.c.expires_at).where(
    SESSIONS.c.token_hash == bindparam("token_hash")
)


class RdbSessions:
    """The ``rdb`` session backend: one row per session in ``fw_sessions``."""

    name = "rdb"

    def __init__(self, engine: AsyncEngine, direct: DirectReads | None = None) -> None:
        self.engine = engine
        self._load = (direct or DirectReads(engine)).statement(_SESSION_LOAD)

    async def save(self, record: Record, expires_at: float) -> str:
        token = new_token()
        digest = token_digest(token)
        row = {
            "token_hash": digest,
            "data": json.dumps(record, separators=(",", ":")),
            "account_id": str(record.get("account_id", "")),
            "expires_at": _when(expires_at),
        }
        with _answering():
            async with self.engine.begin() as conn:
                await conn.execute(insert(SESSIONS).values(**row))
                marks = _marks(record)
                if marks:
                    rows = [{"mark": m, "token_hash": digest, "expires_at": row["expires_at"]} for m in marks]
                    await conn.execute(insert(SESSION_MARKS), rows)
                if random.random() < _PURGE_CHANCE:
                    now = _when(time.time())
                    await conn.execute(delete(SESSIONS).where(SESSIONS.c.expires_at < now))
                    if marks:  # the marks table exists where marks are written
                        await conn.execute(delete(SESSION_MARKS).where(SESSION_MARKS.c.expires_at < now))
        return token

    async def load(self, value: str) -> Record | None:
        if not well_formed(value):
            return None
        with _answering():
            rows = await self._load.rows({"token_hash": token_digest(value)})
        return _unexpired(*rows[0]) if rows else None

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        digest = token_digest(value)
        statement = (
            update(SESSIONS)
            .where(SESSIONS.c.token_hash == digest)
            .values(data=json.dumps(record, separators=(",", ":")), expires_at=_when(expires_at))
        )
        statements: list[Executable] = [statement]
        if _marks(record):  # a session's marks never change; they live as long as it does
            statements.append(
                update(SESSION_MARKS)
                .where(SESSION_MARKS.c.token_hash == digest)
                .values(expires_at=_when(expires_at))
            )
        await _write(self.engine, *statements)
        return value

    async def delete(self, value: str) -> None:
        if well_formed(value):
            await _write(self.engine, delete(SESSIONS).where(SESSIONS.c.token_hash == token_digest(value)))

    async def delete_account(self, account_id: str) -> int:
        mine = and_(SESSIONS.c.account_id == account_id, SESSIONS.c.token_hash != SHARED_KEY_ID)
        return await _write(self.engine, delete(SESSIONS).where(mine))

    async def delete_marked(self, mark: str) -> int:
        marked = select(SESSION_MARKS.c.token_hash).where(SESSION_MARKS.c.mark == mark)
        with _answering():
            async with self.engine.begin() as conn:
                gone = await conn.execute(delete(SESSIONS).where(SESSIONS.c.token_hash.in_(marked)))
                await conn.execute(delete(SESSION_MARKS).where(SESSION_MARKS.c.mark == mark))
        return int(gone.rowcount or 0)

    async def shared_key(self, offer: bytes | None = None) -> bytes:
        """Read the key row; the first process to find none inserts it, racing ones read the winner's."""
        query = select(SESSIONS.c.data).where(SESSIONS.c.token_hash == SHARED_KEY_ID)
        with _answering():
            for _ in range(2):
                async with self.engine.begin() as conn:
                    row = (await conn.execute(query)).first()
                if row is not None:
                    return base64.b64decode(json.loads(row.data)["key"])
                fresh = base64.b64encode(offer or os.urandom(32)).decode("ascii")
                key_row = {
                    "token_hash": SHARED_KEY_ID,
                    "data": json.dumps({"key": fresh}),
                    "expires_at": _NEVER,
                }
                try:
                    async with self.engine.begin() as conn:
                        await conn.execute(insert(SESSIONS).values(account_id="", **key_row))
                    return base64.b64decode(fresh)
                except IntegrityError:
                    continue  # another process inserted it first: read theirs
        raise StoreUnavailable("the shared key row could neither be read nor created")

    async def check(self) -> None:
        """Reachability and the table are checked with the other rdb tables at startup."""

    async def close(self) -> None:
        """The engine belongs to the :class:`RdbStore` that handed this store out."""


class RdbCeremonies:
    """``fw_ceremonies``: put-if-absent and a take that is one ``DELETE ... RETURNING``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def put(self, key: str, record: dict[str, Any], expires_at: datetime) -> bool:
        row = {"key": key, "data": json.dumps(record, separators=(",", ":")), "expires_at": _at(expires_at)}
        # Expired records are dead: drop them, so an expired holder of ``key`` gives way too.
        purge = delete(CEREMONIES).where(CEREMONIES.c.expires_at <= _now())
        added = _insert(self.engine)(CEREMONIES).values(**row).on_conflict_do_nothing()
        return bool(await _write(self.engine, purge, added))

    async def take(self, key: str) -> dict[str, Any] | None:
        statement = (
            delete(CEREMONIES)
            .where(CEREMONIES.c.key == key)
            .returning(CEREMONIES.c.data, CEREMONIES.c.expires_at)
        )
        with _answering():
            async with self.engine.begin() as conn:
                return _document((await conn.execute(statement)).first())


def _credential_is(credential_id: bytes) -> Any:
    return PASSKEYS.c.credential_id == credential_key(credential_id)


def _credential(row: AnyRow) -> PasskeyCredential:
    return credential_from(row._mapping, utc)


class RdbPasskeys:
    """``fw_passkeys``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(self, credential: PasskeyCredential) -> bool:
        added = (
            _insert(self.engine)(PASSKEYS).values(**credential_fields(credential)).on_conflict_do_nothing()
        )
        return bool(await _write(self.engine, added))

    async def by_account(self, account_id: str) -> list[PasskeyCredential]:
        query = (
            select(PASSKEYS)
            .where(PASSKEYS.c.account_id == account_id)
            .order_by(PASSKEYS.c.created_at, PASSKEYS.c.credential_id)
        )
        with _answering():
            async with reader(self.engine).connect() as conn:
                rows = (await conn.execute(query)).all()
        return [_credential(row) for row in rows]

    async def get(self, credential_id: bytes) -> PasskeyCredential | None:
        row = await _first(self.engine, select(PASSKEYS).where(_credential_is(credential_id)))
        return _credential(row) if row is not None else None

    async def remove(self, account_id: str, credential_id: bytes) -> bool:
        mine = and_(PASSKEYS.c.account_id == account_id, _credential_is(credential_id))
        return bool(await _write(self.engine, delete(PASSKEYS).where(mine)))

    async def record_use(
        self, credential_id: bytes, *, sign_count: int, backed_up: bool, used_at: datetime
    ) -> bool:
        stored = PASSKEYS.c.sign_count
        moves_up = sign_count_condition(sign_count, lambda zero: stored == zero, lambda new: stored < new)
        statement = (
            update(PASSKEYS)
            .where(_credential_is(credential_id), moves_up)
            .values(sign_count=sign_count, backed_up=backed_up, last_used_at=_at(used_at))
        )
        return bool(await _write(self.engine, statement))


class _Undo(Exception):
    """Raised inside a transaction to roll every statement of it back."""


class RdbBootstrap:
    """``fw_bootstrap``; enrollment also writes ``fw_passkeys`` and ``fw_accounts``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    def _open(self, login_id: str) -> Any:
        """The condition "this record is live": unexpired and not yet redeemed."""
        return and_(
            BOOTSTRAP.c.login_id == login_id, BOOTSTRAP.c.expires_at > _now(), BOOTSTRAP.c.redeemed.is_(False)
        )

    async def create(self, record: BootstrapRecord) -> None:
        row = {
            "login_id": record.login_id,
            "account_id": record.account_id,
            "purpose": record.purpose,
            "secret_digest": record.secret_digest,
            "created_at": _at(record.created_at),
            "expires_at": _at(record.expires_at),
            "attempts_left": record.attempts_left,
            "redeemed": record.redeemed,
        }
        changes = {name: value for name, value in row.items() if name != "login_id"}
        upsert = _insert(self.engine)(BOOTSTRAP).values(**row)
        await _write(self.engine, upsert.on_conflict_do_update(index_elements=["login_id"], set_=changes))

    async def get(self, login_id: str) -> BootstrapRecord | None:
        query = select(BOOTSTRAP).where(BOOTSTRAP.c.login_id == login_id, BOOTSTRAP.c.expires_at > _now())
        row = await _first(self.engine, query)
        if row is None:
            return None
        return BootstrapRecord(
            login_id=row.login_id,
            account_id=row.account_id,
            purpose=row.purpose,
            secret_digest=bytes(row.secret_digest),
            created_at=utc(row.created_at),
            expires_at=utc(row.expires_at),
            attempts_left=int(row.attempts_left),
            redeemed=bool(row.redeemed),
        )

    async def spend_attempt(self, login_id: str) -> bool:
        statement = (
            update(BOOTSTRAP)
            .where(self._open(login_id), BOOTSTRAP.c.attempts_left > 0)
            .values(attempts_left=BOOTSTRAP.c.attempts_left - 1)
        )
        return bool(await _write(self.engine, statement))

    async def redeem(self, login_id: str, enrollment_expires_at: datetime) -> bool:
        until = _at(enrollment_expires_at)
        sooner = case((BOOTSTRAP.c.expires_at < until, BOOTSTRAP.c.expires_at), else_=until)
        statement = update(BOOTSTRAP).where(self._open(login_id)).values(redeemed=True, expires_at=sooner)
        return bool(await _write(self.engine, statement))

    async def enroll(self, login_id: str, credential: PasskeyCredential) -> bool:
        redeemed = and_(
            BOOTSTRAP.c.login_id == login_id,
            BOOTSTRAP.c.redeemed.is_(True),
            BOOTSTRAP.c.expires_at > _now(),
            BOOTSTRAP.c.account_id == credential.account_id,
        )
        try:
            with _answering():
                async with self.engine.begin() as conn:
                    if not (await conn.execute(delete(BOOTSTRAP).where(redeemed))).rowcount:
                        raise _Undo
                    added = _insert(self.engine)(PASSKEYS).values(**credential_fields(credential))
                    if not (await conn.execute(added.on_conflict_do_nothing())).rowcount:
                        raise _Undo
                    owner = ACCOUNTS.c.account_id == credential.account_id
                    await conn.execute(update(ACCOUNTS).where(owner).values(active=True))
        except _Undo:
            return False
        return True


class RdbStore:
    """Every auth record on one engine for ``[middleware.rdb] dsn``."""

    name = "rdb"

    def __init__(self, engine: AsyncEngine, dsn: str) -> None:
        self.engine = engine
        self.dsn = dsn
        self._direct = DirectReads(engine)
        self.accounts = RdbAccounts(engine)
        self.allowlist = RdbAllowList(engine)
        self.revocations = RdbRevocations(engine, self._direct)
        self.ceremonies = RdbCeremonies(engine)
        self.passkeys = RdbPasskeys(engine)
        self.bootstrap = RdbBootstrap(engine)

    @classmethod
    def open(cls, dsn: str, pool_size: int = DEFAULT_POOL_SIZE) -> RdbStore:
        """A store on a new engine (no connection is made until the first query)."""
        return cls(create_engine(dsn, pool_size), dsn)

    async def require(self, kinds: Iterable[str]) -> None:
        await require_tables(self.engine, self.dsn, [TABLES[kind] for kind in kinds])

    def sessions(self) -> RdbSessions:
        return RdbSessions(self.engine, self._direct)

    async def close(self) -> None:
        self._direct.close()
        await self.engine.dispose()
