"""Fixtures: the passkey tests call the migrated SQLite database of the shared fixtures `dsn`."""

from __future__ import annotations

import pytest


@pytest.fixture
def dsn(sqlite_dsn: str) -> str:
    return sqlite_dsn
