"""SQLite held by another writer for longer than the busy timeout: "database is locked".

An App waits 15 s for the lock (``fw.rdb.create_engine``); these tests give the store an engine
that waits a tenth of a second, so the real lock error arrives at once, on both paths a read takes
(the read-only ``sqlite3`` connection beneath SQLAlchemy refuses to wait and hands the read to
the engine) and on a write.
"""

from __future__ import annotations

import sqlite3
import time
import traceback
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.rdb import RdbStore
from fw.rdb.migrate import upgrade

ISSUER = "https://issuer.test"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[tuple[RdbStore, Path]]:
    path = tmp_path / "locked.sqlite3"
    dsn = f"sqlite:///{path}"
    await upgrade(dsn)
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}", connect_args={"timeout": 0.1})
    opened = RdbStore(engine, dsn)
    yield opened, path
    await opened.close()


@pytest.fixture
def locked(store: tuple[RdbStore, Path]) -> Iterator[None]:
    """Another process's writer holding the whole file."""
    writer = sqlite3.connect(store[1], isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    yield
    writer.execute("ROLLBACK")
    writer.close()


async def test_reads_and_writes_on_a_sqlite_file_locked_past_the_busy_timeout_are_store_unavailable(
    store: tuple[RdbStore, Path], locked: None
) -> None:
    records = store[0]
    sessions = records.sessions()
    with pytest.raises(StoreUnavailable):
        await records.revocations.lookup(ISSUER, "jti", "subject")
    with pytest.raises(StoreUnavailable):
        await sessions.load("A" * 43)
    with pytest.raises(StoreUnavailable):
        await sessions.save({"account_id": "a1"}, time.time() + 60)
    with pytest.raises(StoreUnavailable):
        await records.revocations.put(ISSUER, "token", "jti", "", timedelta(hours=1))


async def test_a_store_error_names_the_failure_without_the_statement_or_its_parameters(
    store: tuple[RdbStore, Path], locked: None
) -> None:
    records = store[0]
    with pytest.raises(StoreUnavailable) as refused:
        await records.revocations.put(ISSUER, "token", "jti-of-alice", "", timedelta(hours=1))
    error = refused.value
    assert str(error) == "OperationalError: database is locked"
    # Nor in a logged traceback: SQLAlchemy's error, which quotes the statement, is not shown in it.
    shown: list[BaseException] = []
    link: BaseException | None = error
    while link is not None:
        shown.append(link)
        link = link.__cause__ or (None if link.__suppress_context__ else link.__context__)
    said = "".join(line for link in shown for line in traceback.format_exception_only(link))
    assert "database is locked" in said
    for statement in ("INSERT", "fw_revocations", "[SQL", "jti-of-alice"):
        assert statement not in said
