"""Shared fixtures: real PostgreSQL and Redis when CI points at them (a visible skip otherwise),
a migrated SQLite database, the development identity provider, account seams reset after a test."""

from __future__ import annotations

import asyncio
import os
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
