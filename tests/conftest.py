"""Shared fixtures: real PostgreSQL and Redis when CI points at them (a visible skip otherwise),
a PostgreSQL cluster and a Redis server of a test's own that it may stop (``postgres``,
``redis_server``), DynamoDB served by a local moto server, Google's Firestore emulator in
Datastore mode (once per session, skipped where ``gcloud`` is absent), a migrated SQLite
database, the development identity
provider, account seams reset after a test, ``store_backend``: one integration test run on
every ``auth.backend`` engine, and ``session_store``: one session-manager test run on the rdb
(SQLite, PostgreSQL), Redis and cookie session stores.

Under ``CI=true`` (``bash .ci/run``) a skipped test fails the run: every skip here names
something missing on the machine, and CI installs all of it, so a skip there is a test that
silently did not run. The skipped tests and their reasons are listed at the end of the run;
:data:`ALLOWED_SKIPS` names the exceptions, each with its reason. An expected failure (xfail) is
not a skip.
"""

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
from private_servers import PrivatePostgres, PrivateRedis, private_postgres, private_redis

from fw.auth import accounts
from fw.auth.stores import SessionStore
from fw.auth.stores.cookie import CookieSessions
from fw.auth.stores.rdb import RdbSessions
from fw.rdb import create_engine
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider, identity_provider

#: Tests that may skip under ``CI=true``: a node ID (a parametrized test's ID without its
#: ``[...]`` covers every parameter) and why it cannot run in CI. Keep it empty.
ALLOWED_SKIPS: dict[str, str] = {}


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def _allowed(nodeid: str) -> bool:
    return nodeid in ALLOWED_SKIPS or nodeid.partition("[")[0] in ALLOWED_SKIPS


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


#: The skips ``CI=true`` refuses, as (node ID, reason), in the order they happened.
_refused_skips: list[tuple[str, str]] = []


def _note_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail") and not _allowed(report.nodeid):
        _refused_skips.append((report.nodeid, _skip_reason(report)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note_skip(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note_skip(report)  # a module skipped as a whole (pytest.importorskip at its top, say)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    passing = (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
    if _in_ci() and _refused_skips and exitstatus in passing:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not (_in_ci() and _refused_skips):
        return
    terminalreporter.section("tests skipped under CI=true (the run fails)", sep="=", red=True)
    for nodeid, reason in _refused_skips:
        terminalreporter.line(f"SKIPPED {nodeid}: {reason}", red=True)
    terminalreporter.line(
        f"{len(_refused_skips)} skipped: CI installs everything the tests use (.ci/run); install "
        "what is missing, or add the test to ALLOWED_SKIPS in tests/conftest.py with its reason."
    )


def _shared_server(variable: str, server: str) -> str:
    """Where the shared ``server`` is, from ``variable``; the test skips where it is not set."""
    where = os.environ.get(variable)
    if not where:
        pytest.skip(f"{variable} is not set (bash .ci/run sets it to the local {server})")
    return where


@pytest.fixture
def postgres_dsn() -> str:
    return _shared_server("FW_TEST_POSTGRES_DSN", "PostgreSQL")


@pytest.fixture
def redis_url() -> str:
    return _shared_server("FW_TEST_REDIS_URL", "Redis")


@pytest.fixture
def postgres() -> Iterator[PrivatePostgres]:
    """A migrated PostgreSQL cluster of the test's own (``private_servers.py``), which the test may
    stop, kill or hold in recovery: never the shared one of ``postgres_dsn``."""
    try:
        with private_postgres() as server:
            asyncio.run(upgrade(server.dsn))
            yield server
    except local_servers.NotInstalled as missing:
        pytest.skip(str(missing))


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A Redis server of the test's own (``private_servers.py``), which the test may kill, restart
    or freeze: never the shared one of ``redis_url``."""
    try:
        with private_redis(tmp_path) as server:
            yield server
    except local_servers.NotInstalled as missing:
        pytest.skip(str(missing))


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
