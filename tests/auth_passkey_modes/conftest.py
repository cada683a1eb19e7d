"""Fixtures: a migrated SQLite database per test, account seams reset afterwards."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from fw.auth import accounts
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider, identity_provider


@pytest.fixture(autouse=True)
def _fresh_account_seams() -> Iterator[None]:
    yield
    accounts.set_account_resolver(None)
    accounts.set_account_lookup(None)


@pytest.fixture
def dsn(tmp_path: Path) -> str:
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    asyncio.run(upgrade(dsn))
    return dsn


@pytest.fixture
def idp() -> Iterator[TestIdentityProvider]:
    with identity_provider() as provider:
        yield provider
