"""Fixtures for the outage tests: a local token issuer and a private, migrated PostgreSQL that a
test may stop (the other stores and servers are each test's own)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from local_servers import NotInstalled
from private_servers import PrivatePostgres, private_postgres

from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer


@pytest.fixture
def issuer() -> Iterator[LocalIssuer]:
    with LocalIssuer() as running:
        yield running


@pytest.fixture
def postgres() -> Iterator[PrivatePostgres]:
    try:
        with private_postgres() as server:
            asyncio.run(upgrade(server.dsn))
            yield server
    except NotInstalled as missing:
        pytest.skip(str(missing))
