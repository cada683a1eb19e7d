"""One fixture, every backend: the store contract runs on each engine fw serves.

``backend`` is parametrized by engine, in the manner of a store test-suite: SQLite in a file of
the test's own, PostgreSQL at ``FW_TEST_POSTGRES_DSN``, Redis at ``FW_TEST_REDIS_URL`` (each
skipped with the reason when its variable is missing), the sealed cookie, DynamoDB on a local
moto server (a table of the test's own, created as ``fw migrate`` does) and Firestore in
Datastore mode on Google's emulator (started once per session, a namespace per test), and
``memory``, an engine registered from outside fw (:mod:`stores.memory.store`) and opened through
the store registry as fw opens its own. A new engine joins by adding its fixture and its name to
the engine lists below. Each test runs
on exactly the engines that implement what it asks for: ``auth_store`` on the engines that keep
the ``auth.backend`` records, ``backend`` and ``sessions`` on every engine that keeps sessions,
``recalling_backend`` on those whose destroyed sessions are gone everywhere, ``server_backend`` on
those with a server that can be missing.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from fw.auth.sessions.settings import SessionKeyring, SessionSettings
from fw.auth.stores import AuthStore, SessionStore
from fw.auth.stores.cookie import CookieSessions
from fw.auth.stores.engines.dynamo import DynamoSettings
from fw.auth.stores.rdb import RdbStore
from fw.auth.stores.registry import StoreSettings
from fw.auth.stores.select import open_auth_store, open_session_store
from fw.rdb.migrate import upgrade

from .memory.store import MemorySettings, memory_registered


@dataclass
class Backend:
    """One engine under test."""

    name: str
    #: The ``auth.backend`` records, or ``None`` for an engine that keeps only sessions.
    auth: AuthStore | None
    sessions: SessionStore
    #: Another handle on the same sessions, as a second app process would open.
    reopen_sessions: Callable[[], SessionStore]
    #: The same engine aimed at nothing (``None`` when there is no server to miss).
    unreachable: Callable[[], AuthStore | SessionStore] | None
    #: Whether destroying a session recalls it everywhere (not for sealed cookies).
    recalls_sessions: bool = True


@pytest.fixture
async def sqlite_backend(tmp_path: Path) -> AsyncIterator[Backend]:
    dsn = f"sqlite:///{tmp_path / 'stores.sqlite3'}"
    await upgrade(dsn)
    store = RdbStore.open(dsn)
    # An embedded database has no server to miss: its failure is a file that cannot be read.
    unreadable = tmp_path / "unreadable.sqlite3"
    unreadable.write_bytes(b"this is not a database file" * 100)
    yield Backend(
        "sqlite",
        store,
        store.sessions(),
        store.sessions,
        lambda: RdbStore.open(f"sqlite:///{unreadable}"),
    )
    await store.close()


@pytest.fixture
async def postgresql_backend(postgres_dsn: str) -> AsyncIterator[Backend]:
    await upgrade(postgres_dsn)
    store = RdbStore.open(postgres_dsn)
    yield Backend(
        "postgresql",
        store,
        store.sessions(),
        store.sessions,
        lambda: RdbStore.open("postgresql://fw@127.0.0.1:9/unreachable"),
    )
    await store.close()


@pytest.fixture
async def redis_backend(redis_url: str) -> AsyncIterator[Backend]:
    from fw.auth.stores.redis import RedisSessions

    prefix = f"fw-test-stores:{secrets.token_hex(4)}:"
    opened: list[RedisSessions] = []

    def sessions() -> RedisSessions:
        opened.append(RedisSessions(redis_url, prefix=prefix))
        return opened[-1]

    yield Backend("redis", None, sessions(), sessions, lambda: RedisSessions("redis://127.0.0.1:1/0"))
    for store in opened:
        await store.close()


def dynamo_settings(endpoint: str, prefix: str | None = None) -> DynamoSettings:
    return DynamoSettings("us-east-1", endpoint, prefix or f"fw_test_{secrets.token_hex(4)}_")


async def create_table_without_ttl(settings: DynamoSettings) -> None:
    """fw's table as someone might create it by hand: the right keys, TTL never enabled."""
    from fw.auth.stores.dynamo import TABLE_LAYOUT, DynamoTable

    table = DynamoTable(settings)
    try:
        await table.call("create_table", TableName=table.name, **TABLE_LAYOUT)
    finally:
        await table.close()


@pytest.fixture
async def dynamo_backend(dynamo_endpoint: str, closed_loopback_url: str) -> AsyncIterator[Backend]:
    from fw.auth.stores.dynamo import DynamoStore, create_table

    settings = dynamo_settings(dynamo_endpoint)
    await create_table(settings)
    store = DynamoStore.open(settings)
    closed = dynamo_settings(closed_loopback_url)
    yield Backend(
        "dynamo",
        store,
        store.sessions(),
        lambda: DynamoStore.open(settings).sessions(),
        lambda: DynamoStore.open(closed),
    )
    await store.close()


@pytest.fixture
async def firestore_backend(firestore_emulator: str) -> AsyncIterator[Backend]:
    from fw.auth.stores.engines.firestore import FirestoreSettings
    from fw.auth.stores.firestore import FirestoreStore

    settings = FirestoreSettings("fw-test", "", firestore_emulator)
    namespace = unique("fw-test")  # every test its own namespace on the one emulator
    opened = [FirestoreStore.open(settings, namespace=namespace)]

    def reopen() -> SessionStore:
        opened.append(FirestoreStore.open(settings, namespace=namespace))
        return opened[-1].sessions()

    def unreachable() -> AuthStore:
        return FirestoreStore.open(FirestoreSettings("fw-test", "", "127.0.0.1:9"), patience=0)

    yield Backend("firestore", opened[0], opened[0].sessions(), reopen, unreachable)
    for store in opened:
        await store.close()


@pytest.fixture
def cookie_backend() -> Backend:
    secret = secrets.token_urlsafe(32)
    store = CookieSessions(secret)
    return Backend("cookie", None, store, lambda: CookieSessions(secret), None, recalls_sessions=False)


@pytest.fixture
async def memory_backend() -> AsyncIterator[Backend]:
    """The outside engine, opened by name through the registry (``auth.backend = "memory"``)."""
    space = MemorySettings(unique("space"))
    where = StoreSettings(lookup=lambda cls: space)
    session = SessionSettings(True, "memory", "", SessionKeyring(""))
    with memory_registered():
        store = await open_auth_store("memory", where, ["accounts", "sessions", "passkeys", "bootstrap"])
        own = open_session_store(session, None, where)  # sessions on a handle of their own
        assert own.name == store.name == "memory" and own is not store.sessions()
        yield Backend(
            "memory", store, store.sessions(), lambda: open_session_store(session, None, where), None
        )
        await store.close()


#: Engines keeping the ``auth.backend`` records (accounts, allow-list, revocations, ceremonies...).
AUTH_ENGINES = ["sqlite", "postgresql", "dynamo", "firestore", "memory"]
#: Engines keeping browser sessions (``session.backend``).
SESSION_ENGINES = ["sqlite", "postgresql", "redis", "cookie", "dynamo", "firestore", "memory"]
#: Session engines whose destroyed sessions are gone for every holder of the cookie.
RECALLING_ENGINES = ["sqlite", "postgresql", "redis", "dynamo", "firestore", "memory"]
#: Engines with a server (or file) that can be missing.
SERVER_ENGINES = ["sqlite", "postgresql", "redis", "dynamo", "firestore"]


def _engine(request: pytest.FixtureRequest) -> Backend:
    found = request.getfixturevalue(f"{request.param}_backend")
    assert isinstance(found, Backend)
    return found


@pytest.fixture(params=SESSION_ENGINES)
def backend(request: pytest.FixtureRequest) -> Backend:
    return _engine(request)


# One fixture per engine list: pytest parametrises each by its own params.
@pytest.fixture(params=RECALLING_ENGINES)
def recalling_backend(request: pytest.FixtureRequest) -> Backend:
    return _engine(request)


@pytest.fixture(params=SERVER_ENGINES)
def server_backend(request: pytest.FixtureRequest) -> Backend:
    return _engine(request)


@pytest.fixture(params=AUTH_ENGINES)
def auth_backend(request: pytest.FixtureRequest) -> Backend:
    return _engine(request)


@pytest.fixture(params=[engine for engine in AUTH_ENGINES if engine in SERVER_ENGINES])
def server_auth_backend(request: pytest.FixtureRequest) -> Backend:
    """An engine keeping the ``auth.backend`` records behind a server (or file) that can be missing."""
    return _engine(request)


@pytest.fixture
def auth_store(auth_backend: Backend) -> AuthStore:
    """The ``auth.backend`` records of an engine that keeps them."""
    assert auth_backend.auth is not None
    return auth_backend.auth


@pytest.fixture
def sessions(backend: Backend) -> SessionStore:
    return backend.sessions


def unique(prefix: str) -> str:
    """A value no other test (or earlier run on a shared database) uses."""
    return f"{prefix}-{secrets.token_hex(6)}"
