"""Shared fixtures: real PostgreSQL and Redis when CI points at them (a visible skip otherwise),
DynamoDB served by a local moto server, Google's Firestore emulator in Datastore mode (once per
session, skipped where ``gcloud`` is absent), a migrated SQLite database, the development identity
provider, account seams reset after a test, and ``store_backend``: one integration test run on
every ``auth.backend`` engine."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import StoreBackend, store_backend_for

from fw.auth import accounts
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


def free_port() -> int:
    """A loopback port nothing listens on (bound, read, released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def dynamo_endpoint() -> Iterator[str]:
    """A moto server on a free loopback port (its in-process mock does not reach aiobotocore),
    with throwaway AWS credentials in the environment; stopped by its PID."""
    server = shutil.which("moto_server", path=os.path.dirname(sys.executable)) or shutil.which("moto_server")
    if server is None:
        pytest.skip("moto_server is not installed (pip install 'moto[server]', part of fw[test])")
    port = free_port()
    process = subprocess.Popen(
        [server, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.skip(f"moto_server did not start on 127.0.0.1:{port}")
            time.sleep(0.1)
    saved = {name: os.environ.get(name) for name in _AWS_ENVIRONMENT}
    os.environ.update(_AWS_ENVIRONMENT)
    yield f"http://127.0.0.1:{port}"
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def closed_loopback_url() -> str:
    """An http URL on a loopback port nothing listens on."""
    return f"http://127.0.0.1:{free_port()}"


_AWS_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def _emulator(folder: Path, mode: str) -> Iterator[str]:
    """Run Google's Firestore emulator in ``mode``; ``host:port`` while it runs.

    It is stopped with its whole process group: the ``gcloud`` wrapper starts a Java server that
    would otherwise outlive the tests.
    """
    gcloud = shutil.which("gcloud")
    if gcloud is None:
        pytest.skip("gcloud is not installed: the Firestore emulator cannot run (bash .ci/run needs it)")
    host = f"127.0.0.1:{free_port()}"
    log = folder / "emulator.log"
    command = [gcloud, "emulators", "firestore", "start", f"--database-mode={mode}", f"--host-port={host}"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "CLOUDSDK_CORE_DISABLE_PROMPTS": "1"},
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while not _answers(f"http://{host}/"):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Firestore emulator did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.25)
        yield host
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


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
