"""Shared fixtures: real PostgreSQL and Redis when CI points at them (a visible skip otherwise),
DynamoDB served by a local moto server, Google's Firestore emulator in Datastore mode (once per
session, skipped where ``gcloud`` is absent), a migrated SQLite database, the development identity
provider, account seams reset after a test, ``store_backend``: one integration test run on
every ``auth.backend`` engine, and ``session_store``: one session-manager test run on the rdb
(SQLite, PostgreSQL), Redis and cookie session stores."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import local_servers
import pytest
from backends import StoreBackend, store_backend_for
from local_servers import free_port

from fw.auth import accounts
from fw.auth.stores import SessionStore
from fw.auth.stores.cookie import CookieSessions
from fw.auth.stores.rdb import RdbSessions
from fw.rdb import create_engine
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider, identity_provider


@pytest.fixture
def postgres_dsn() -> str:
    dsn = os.environ.get("FW_TEST_POSTGRES_DSN")
    if not dsn:
        pytest.skip("FW_TEST_POSTGRES_DSN is not set (bash .ci/run sets it to the local PostgreSQL)")
    return dsn


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("FW_TEST_REDIS_URL")
    if not url:
        pytest.skip("FW_TEST_REDIS_URL is not set (bash .ci/run sets it to the local Redis)")
    return url


@pytest.fixture(scope="session")
def dynamo_endpoint() -> Iterator[str]:
    """A moto server on a free loopback port, with throwaway AWS credentials in the environment."""
    try:
        with local_servers.moto_server() as url:
            yield url
    except local_servers.NotInstalled as missing:
        pytest.skip(str(missing))


@pytest.fixture
def closed_loopback_url() -> str:
    """An http URL on a loopback port nothing listens on."""
    return f"http://127.0.0.1:{free_port()}"


@contextlib.contextmanager
def _emulator(folder: Path, mode: str) -> Iterator[str]:
    """Google's Firestore emulator in ``mode``: skipped where gcloud is absent, failed if it never starts."""
    try:
        with local_servers.firestore_emulator(folder, mode) as host:
            yield host
    except local_servers.NotInstalled as missing:
        pytest.skip(str(missing))
    except local_servers.DidNotStart as failure:
        pytest.fail(str(failure))


@pytest.fixture(scope="session")
def firestore_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``host:port`` of the Firestore emulator in Datastore mode, started once per session
    (tests isolate themselves by namespace)."""
    with _emulator(tmp_path_factory.mktemp("firestore"), "datastore-mode") as host:
        yield host


@pytest.fixture
def firestore_native_emulator(tmp_path: Path) -> Iterator[str]:
    """``host:port`` of a Firestore emulator in Native mode, which fw must refuse."""
    with _emulator(tmp_path, "firestore-native") as host:
        yield host


@pytest.fixture(autouse=True)
def _fresh_account_seams() -> Iterator[None]:
    yield
    accounts.set_account_resolver(None)
    accounts.set_account_lookup(None)


@pytest.fixture
def sqlite_dsn(tmp_path: Path) -> str:
    """A migrated SQLite database of the test's own."""
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    asyncio.run(upgrade(dsn))
    return dsn


@pytest.fixture
def idp() -> Iterator[TestIdentityProvider]:
    with identity_provider() as provider:
        yield provider


#: The ``auth.backend`` engines an integration test runs on (relational twice: embedded and server).
STORE_ENGINES = ["sqlite", "postgresql", "dynamo", "firestore"]


@pytest.fixture(params=STORE_ENGINES)
def store_backend(request: pytest.FixtureRequest) -> StoreBackend:
    """Each ``auth.backend`` engine in turn, holding a store of this test's own."""
    return store_backend_for(request.param, request)


@pytest.fixture(params=["sqlite", "postgresql", "redis", "cookie"])
async def session_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionStore]:
    """A session store of each kind the session manager runs on, empty and of this test's own."""
    kind = request.param
    if kind == "cookie":
        yield CookieSessions(secrets.token_urlsafe(32))
        return
    if kind == "redis":
        from fw.auth.stores.redis import RedisSessions

        redis_store = RedisSessions(
            request.getfixturevalue("redis_url"), prefix=f"fw-test-sessions:{secrets.token_hex(4)}:"
        )
        yield redis_store
        await redis_store.close()
        return
    dsn = (
        f"sqlite:///{tmp_path / 's.sqlite3'}" if kind == "sqlite" else request.getfixturevalue("postgres_dsn")
    )
    await upgrade(dsn)
    engine = create_engine(dsn)
    yield RdbSessions(engine)
    await engine.dispose()
