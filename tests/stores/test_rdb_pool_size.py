"""``[middleware.rdb] pool_size``: the configured number reaches the PostgreSQL engine's pool,
SQLite keeps the pool of its driver, and a value that is not a positive number is a
:class:`fw.ConfigError` naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

import fw
from fw.auth.stores.engines.rdb import RdbSettings
from fw.auth.stores.select import middleware_settings, open_auth_store
from fw.errors import ConfigError
from fw.rdb import create_engine
from fw.rdb.migrate import upgrade
from fw.testing import configured


async def test_a_configured_pool_size_reaches_the_postgresql_engine(postgres_dsn: str) -> None:
    await upgrade(postgres_dsn)
    env = {"MIDDLEWARE_RDB_DSN": postgres_dsn, "MIDDLEWARE_RDB_POOL_SIZE": "7"}
    with configured(env=env):
        rdb = fw.config(RdbSettings)
    assert rdb.pool_size == 7
    where = middleware_settings(rdb.dsn, pool_size=rdb.pool_size)
    store = await open_auth_store("rdb", where, ["revocations"])
    try:
        assert store.engine.pool.size() == 7
    finally:
        await store.close()


def test_the_postgresql_pool_keeps_twenty_connections_when_pool_size_is_not_set() -> None:
    with configured(env={}):
        assert fw.config(RdbSettings).pool_size == 20
    engine = create_engine("postgresql://fw@127.0.0.1:5432/unused")
    assert engine.pool.size() == 20


async def test_a_sqlite_store_opens_with_a_configured_pool_size(tmp_path: Path) -> None:
    dsn = f"sqlite:///{tmp_path / 'pool.sqlite3'}"
    await upgrade(dsn)
    driver_pool = create_engine(dsn).pool
    assert driver_pool.size() != 3
    store = await open_auth_store("rdb", middleware_settings(dsn, pool_size=3), ["revocations"])
    try:
        assert type(store.engine.pool) is type(driver_pool)
        assert store.engine.pool.size() == driver_pool.size()
    finally:
        await store.close()


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_a_pool_size_that_is_not_a_positive_number_is_a_config_error_naming_the_key(value: str) -> None:
    with (
        pytest.raises(ConfigError, match=r"middleware\.rdb\.pool_size") as refused,
        configured(env={"MIDDLEWARE_RDB_POOL_SIZE": value}),
    ):
        create_engine("postgresql://fw@127.0.0.1:5432/unused", fw.config(RdbSettings).pool_size)
    assert refused.value.key == "middleware.rdb.pool_size"
