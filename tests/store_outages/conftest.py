"""Fixtures for the outage tests: a local token issuer (the private, migrated PostgreSQL a test
may stop is ``postgres``, shared with tests/operations in tests/conftest.py; the other stores and
servers are each test's own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fw.testing.issuer import LocalIssuer


@pytest.fixture
def issuer() -> Iterator[LocalIssuer]:
    with LocalIssuer() as running:
        yield running
