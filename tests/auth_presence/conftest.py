"""Fixtures: a migrated SQLite database of the test's own, and a clock the test moves."""

from __future__ import annotations

import pytest

from auth_presence.support import Clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)
