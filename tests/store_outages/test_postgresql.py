"""PostgreSQL going away under a running App, on a cluster of the test's own: stopped (nothing
answers the port) and held in recovery (the server answers every connection with SQLSTATE 57P03,
"the database system is starting up" or "not accepting connections", asyncpg's
``CannotConnectNowError``, as it does for as long as it starts up after a restart).

Both request-path reads run beneath SQLAlchemy on this engine (``fw.rdb.pointread``): a bearer
token's revocation entries and a browser session. The account re-read and every write go through
SQLAlchemy.
"""

from __future__ import annotations

import pytest
from private_servers import PrivatePostgres

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.rdb import RdbStore
from fw.testing import TestIdentityProvider
from fw.testing.issuer import LocalIssuer

from .support import (
    assert_sessions_refused_as_unavailable,
    assert_sessions_served_again,
    assert_tokens_refused_as_unavailable,
    assert_tokens_served_again,
    bearer_api,
    browser_app,
    tokens,
)


def _go_down(server: PrivatePostgres, outage: str) -> None:
    server.stop()
    if outage == "held in recovery":
        server.hold_in_recovery()


def _come_back(server: PrivatePostgres, outage: str) -> None:
    if outage == "held in recovery":
        server.promote()
    else:
        server.start()


@pytest.mark.parametrize("outage", ["stopped", "held in recovery"])
def test_while_postgresql_is_down_valid_tokens_and_sessions_get_503_and_revoked_ones_never_get_through(
    postgres: PrivatePostgres, issuer: LocalIssuer, idp: TestIdentityProvider, outage: str
) -> None:
    with bearer_api(issuer, postgres.dsn) as api, browser_app(idp, postgres.dsn) as sessions:
        minted = tokens(issuer, api, postgres.dsn)
        _go_down(postgres, outage)
        assert_tokens_refused_as_unavailable(api, minted)
        assert_sessions_refused_as_unavailable(sessions)
        _come_back(postgres, outage)
        assert_tokens_served_again(api, minted)
        assert_sessions_served_again(sessions)


async def test_the_revocation_read_meets_the_drivers_own_cannot_connect_now_error_as_store_unavailable(
    postgres: PrivatePostgres,
) -> None:
    import asyncpg

    store = RdbStore.open(postgres.dsn)
    try:
        await store.revocations.lookup("https://issuer.test", "jti", "subject")  # a pooled connection
        postgres.stop()
        postgres.hold_in_recovery()
        with pytest.raises(asyncpg.CannotConnectNowError):  # what the server answers, to asyncpg itself
            await asyncpg.connect(postgres.dsn)
        for _ in range(3):  # the pooled connection fails, then each new one is refused as starting up
            with pytest.raises(StoreUnavailable):
                await store.revocations.lookup("https://issuer.test", "jti", "subject")
            with pytest.raises(StoreUnavailable):
                await store.sessions().load("A" * 43)
    finally:
        await store.close()
