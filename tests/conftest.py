"""Shared fixtures: real PostgreSQL and Redis when CI points at them (a visible skip otherwise),
DynamoDB served by a local moto server, a migrated SQLite database, the development identity
provider, account seams reset after a test."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

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
