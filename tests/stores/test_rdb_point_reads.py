"""The rdb store's request-path reads, made beneath SQLAlchemy (``fw.rdb.pointread``).

The contract suite proves they answer like every other engine; these tests pin what the
driver-level path adds: a locked SQLite file never blocks the event loop, a PostgreSQL
connection that breaks under a read is replaced, and the two paths agree on stored times.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy.dialects import sqlite

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.rdb import RdbStore
from fw.auth.stores.records import RevocationEntries
from fw.auth.stores.tokens import new_token
from fw.rdb.migrate import upgrade
from fw.rdb.pointread import _sqlite_text

ISSUER = "https://issuer.test"


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[tuple[RdbStore, Path]]:
    path = tmp_path / "point.sqlite3"
    await upgrade(f"sqlite:///{path}")
    store = RdbStore.open(f"sqlite:///{path}")
    yield store, path
    await store.close()


async def test_a_revocation_read_while_a_writer_holds_the_sqlite_file_waits_off_the_event_loop(
    sqlite_store: tuple[RdbStore, Path],
) -> None:
    store, path = sqlite_store
    stamped = await store.revocations.put(ISSUER, "token", "jti-1", "", timedelta(hours=1))
    # The fast path.
    assert await store.revocations.lookup(ISSUER, "jti-1", None) == RevocationEntries(stamped, None)

    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("DELETE FROM fw_revocations")
    lookup = asyncio.create_task(store.revocations.lookup(ISSUER, "jti-1", None))
    ticks = 0
    for _ in range(20):  # the loop keeps running while the read waits for the lock
        await asyncio.sleep(0.01)
        ticks += 1
    assert not lookup.done()
    writer.execute("COMMIT")
    writer.close()
    entries = await asyncio.wait_for(lookup, 10)
    assert ticks == 20
    assert entries.token is None  # it read what the writer committed


async def test_a_session_read_while_a_writer_holds_the_sqlite_file_answers_after_the_commit(
    sqlite_store: tuple[RdbStore, Path],
) -> None:
    store, path = sqlite_store
    sessions = store.sessions()
    token = await sessions.save({"account_id": "a1"}, _in(3600))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    load = asyncio.create_task(sessions.load(token))
    await asyncio.sleep(0.1)
    assert not load.done()
    writer.execute("COMMIT")
    writer.close()
    assert await asyncio.wait_for(load, 10) == {"account_id": "a1"}


async def test_the_fast_sqlite_read_sees_a_revocation_and_its_removal_at_once(
    sqlite_store: tuple[RdbStore, Path],
) -> None:
    store, _ = sqlite_store
    revocations = store.revocations
    assert await revocations.lookup(ISSUER, "jti-2", "subject-2") == await revocations.lookup(
        ISSUER, "jti-2", "subject-2"
    )
    stamp = await revocations.put(ISSUER, "subject", "subject-2", "", timedelta(hours=1))
    entries = await revocations.lookup(ISSUER, "jti-2", "subject-2")
    assert entries.token is None
    assert entries.subject == stamp  # the same instant, in UTC, on both paths
    assert entries.subject == await revocations.stamp(ISSUER, "subject", "subject-2")
    await revocations.remove(ISSUER, "subject", "subject-2")
    assert (await revocations.lookup(ISSUER, "jti-2", "subject-2")).subject is None


async def test_an_expired_revocation_is_not_read_by_the_fast_sqlite_path(
    sqlite_store: tuple[RdbStore, Path],
) -> None:
    store, _ = sqlite_store
    await store.revocations.put(ISSUER, "token", "jti-3", "", timedelta(microseconds=1))
    await asyncio.sleep(0.01)
    assert (await store.revocations.lookup(ISSUER, "jti-3", None)).token is None


@pytest.mark.parametrize(
    "moment",
    [
        datetime(2026, 11, 26, 11, 3, 4, 5),
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(5, 1, 2, 3, 4, 5),
        datetime(2026, 6, 1, 12, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2))),
    ],
)
def test_a_time_bound_to_the_fast_sqlite_read_is_spelt_as_sqlalchemy_stores_it(moment: datetime) -> None:
    stored = sqlite.DATETIME().bind_processor(sqlite.dialect())
    assert stored is not None
    assert _sqlite_text(moment) == stored(moment)


async def test_a_sqlite_file_that_is_not_a_database_reads_as_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"this is not a database file" * 100)
    store = RdbStore.open(f"sqlite:///{path}")
    try:
        with pytest.raises(StoreUnavailable):
            await store.revocations.lookup(ISSUER, "jti", None)
        with pytest.raises(StoreUnavailable):
            await store.sessions().load(new_token())
    finally:
        await store.close()


@pytest.fixture
async def postgres_store(postgres_dsn: str) -> AsyncIterator[RdbStore]:
    await upgrade(postgres_dsn)
    store = RdbStore.open(postgres_dsn)
    yield store
    await asyncio.wait_for(store.close(), 10)


async def _end_pooled_connections(store: RdbStore, how_many: int) -> None:
    """Check ``how_many`` connections out of the store's pool, back in, then end them on the
    server, as a restart or an administrator does."""
    raws = [await store.engine.raw_connection() for _ in range(how_many)]
    pids = [raw.driver_connection.get_server_pid() for raw in raws]  # type: ignore[union-attr]
    for raw in raws:
        raw.close()
    killer = RdbStore.open(str(store.dsn))
    try:
        async with killer.engine.connect() as conn:
            for pid in pids:
                await conn.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
    finally:
        await killer.close()


async def test_a_postgresql_connection_cut_under_a_read_answers_unavailable_once_then_recovers(
    postgres_store: RdbStore,
) -> None:
    revocations = postgres_store.revocations
    stamped = await revocations.put(ISSUER, "token", "jti-pg", "", timedelta(hours=1))
    try:
        assert await revocations.lookup(ISSUER, "jti-pg", None) == RevocationEntries(stamped, None)
        await _end_pooled_connections(postgres_store, 1)
        with pytest.raises(StoreUnavailable):
            await revocations.lookup(ISSUER, "jti-pg", None)
        assert await revocations.lookup(ISSUER, "jti-pg", None) == RevocationEntries(stamped, None)
    finally:
        await revocations.remove(ISSUER, "token", "jti-pg")


async def test_after_a_postgresql_restart_one_failed_read_clears_every_stale_pooled_connection(
    postgres_store: RdbStore,
) -> None:
    await _end_pooled_connections(postgres_store, 4)
    outcomes = []
    for _ in range(4):
        try:
            await postgres_store.revocations.lookup(ISSUER, "jti-restart", None)
            outcomes.append("answered")
        except StoreUnavailable:
            outcomes.append("unavailable")
    assert outcomes == ["unavailable", "answered", "answered", "answered"]


async def test_postgresql_reads_beyond_the_pool_size_hand_every_connection_back(
    postgres_store: RdbStore, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        for _ in range(3):  # 40 at once: the 20 pooled connections and waiters
            lookups = (postgres_store.revocations.lookup(ISSUER, f"jti-{n}", "someone") for n in range(40))
            await asyncio.wait_for(asyncio.gather(*lookups), 30)
    assert postgres_store.engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    assert [record.getMessage() for record in caplog.records] == []


async def test_postgresql_reads_beyond_the_pool_size_wait_for_kept_connections_instead_of_opening_new_ones(
    postgres_store: RdbStore,
) -> None:
    from sqlalchemy import event

    opened: list[object] = []
    event.listen(postgres_store.engine.sync_engine.pool, "connect", lambda *_: opened.append(1))
    for _ in range(4):  # 40 at once, four times over: a pool that churns opens more each wave
        lookups = (postgres_store.revocations.lookup(ISSUER, f"jti-{n}", "someone") for n in range(40))
        await asyncio.wait_for(asyncio.gather(*lookups), 30)
    assert 0 < len(opened) <= postgres_store.engine.pool.size()  # type: ignore[attr-defined]


async def test_a_postgresql_read_cancelled_midway_leaves_the_pool_usable(postgres_store: RdbStore) -> None:
    sessions = postgres_store.sessions()
    token = await sessions.save({"account_id": "a2"}, _in(3600))
    for _ in range(5):
        read = asyncio.create_task(sessions.load(token))
        await asyncio.sleep(0)
        read.cancel()
        with pytest.raises(asyncio.CancelledError):
            await read
    assert await sessions.load(token) == {"account_id": "a2"}
    await sessions.delete(token)


def _in(seconds: float) -> float:
    import time

    return time.time() + seconds
