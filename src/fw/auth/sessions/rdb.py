"""The ``rdb`` backend: one row per session in ``fw_sessions`` (SQLite or PostgreSQL)."""

from __future__ import annotations

import base64
import json
import os
import random
import time
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Index, String, Table, Text, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from fw.auth.sessions.store import (
    SHARED_KEY_ID,
    Record,
    SessionStoreUnavailable,
    new_token,
    token_digest,
    well_formed,
)
from fw.rdb.engine import STORE_ERRORS
from fw.rdb.tables import METADATA, utc

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

_PURGE_CHANCE = 1 / 64
#: The shared key's row never expires, so the purge of expired sessions leaves it alone.
_NEVER = datetime(9999, 12, 31, tzinfo=UTC)


def _when(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


class RdbStore:
    name = "rdb"

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def save(self, record: Record, expires_at: float) -> str:
        token = new_token()
        row = {
            "token_hash": token_digest(token),
            "data": json.dumps(record, separators=(",", ":")),
            "account_id": str(record.get("account_id", "")),
            "expires_at": _when(expires_at),
        }
        try:
            async with self.engine.begin() as conn:
                await conn.execute(insert(SESSIONS).values(**row))
                if random.random() < _PURGE_CHANCE:
                    await conn.execute(delete(SESSIONS).where(SESSIONS.c.expires_at < _when(time.time())))
        except STORE_ERRORS as error:
            raise SessionStoreUnavailable(str(error)) from None
        return token

    async def load(self, value: str) -> Record | None:
        if not well_formed(value):
            return None
        query = select(SESSIONS.c.data, SESSIONS.c.expires_at).where(
            SESSIONS.c.token_hash == token_digest(value)
        )
        try:
            async with self.engine.connect() as conn:
                row = (await conn.execute(query)).first()
        except STORE_ERRORS as error:
            raise SessionStoreUnavailable(str(error)) from None
        if row is None or utc(row.expires_at) <= datetime.now(UTC):
            return None
        data = json.loads(row.data)
        return data if isinstance(data, dict) else None

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        statement = (
            update(SESSIONS)
            .where(SESSIONS.c.token_hash == token_digest(value))
            .values(data=json.dumps(record, separators=(",", ":")), expires_at=_when(expires_at))
        )
        try:
            async with self.engine.begin() as conn:
                await conn.execute(statement)
        except STORE_ERRORS as error:
            raise SessionStoreUnavailable(str(error)) from None
        return value

    async def delete(self, value: str) -> None:
        if not well_formed(value):
            return
        try:
            async with self.engine.begin() as conn:
                await conn.execute(delete(SESSIONS).where(SESSIONS.c.token_hash == token_digest(value)))
        except STORE_ERRORS as error:
            raise SessionStoreUnavailable(str(error)) from None

    async def shared_key(self) -> bytes:
        """Read the key row; the first process to find none inserts it, racing ones read the winner's."""
        query = select(SESSIONS.c.data).where(SESSIONS.c.token_hash == SHARED_KEY_ID)
        try:
            for _ in range(2):
                async with self.engine.begin() as conn:
                    row = (await conn.execute(query)).first()
                if row is not None:
                    return base64.b64decode(json.loads(row.data)["key"])
                fresh = base64.b64encode(os.urandom(32)).decode("ascii")
                try:
                    async with self.engine.begin() as conn:
                        await conn.execute(
                            insert(SESSIONS).values(
                                token_hash=SHARED_KEY_ID,
                                data=json.dumps({"key": fresh}),
                                account_id="",
                                expires_at=_NEVER,
                            )
                        )
                    return base64.b64decode(fresh)
                except IntegrityError:
                    continue  # another process inserted it first: read theirs
        except STORE_ERRORS as error:
            raise SessionStoreUnavailable(str(error)) from None
        raise SessionStoreUnavailable("the shared key row could neither be read nor created")

    async def check(self) -> None:
        """Reachability and the table are checked with the other rdb tables at startup."""

    async def close(self) -> None:
        return None
