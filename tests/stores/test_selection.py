"""Backend selection: refused values name the key and the value; missing extras name the install."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fw.auth.stores.select import (
    check_auth_backend,
    check_session_backend,
    middleware_settings,
    open_auth_store,
)
from fw.errors import StartupError
from fw.extras import EXTRAS, require_extra
from fw.rdb import create_engine


@pytest.mark.parametrize("value", ["memcached", "", "RDB"])
def test_an_auth_backend_fw_cannot_serve_is_a_startup_error(value: str) -> None:
    with pytest.raises(StartupError) as refused:
        check_auth_backend(value)
    assert (refused.value.key, refused.value.value) == ("auth.backend", value)
    assert "rdb" in refused.value.fix


@pytest.mark.parametrize("value", ["memcached", ""])
def test_a_session_backend_fw_cannot_serve_is_a_startup_error(value: str) -> None:
    with pytest.raises(StartupError) as refused:
        check_session_backend(value)
    assert (refused.value.key, refused.value.value) == ("session.backend", value)
    assert "rdb, cookie, redis" in refused.value.fix


async def test_opening_a_refused_auth_backend_touches_no_database(tmp_path: Path) -> None:
    dsn = f"sqlite:///{tmp_path / 'never.sqlite3'}"
    with pytest.raises(StartupError):
        await open_auth_store("memcached", middleware_settings(dsn), ["revocations"])
    assert not (tmp_path / "never.sqlite3").exists()


@pytest.mark.parametrize(("extra", "module"), sorted(EXTRAS.items()))
def test_a_missing_extra_names_the_pip_install_that_adds_it(
    monkeypatch: pytest.MonkeyPatch, extra: str, module: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if the package were not installed
    with pytest.raises(StartupError) as refused:
        require_extra(extra, "some.key", "value", "this feature")
    assert refused.value.key == "some.key"
    assert f"pip install 'fw-web[{extra}]'" in str(refused.value)


def test_an_installed_extra_passes() -> None:
    require_extra("redis", "session.backend", "redis", "the redis session backend")


def test_the_redis_session_backend_without_its_extra_names_the_pip_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(StartupError) as refused:
        check_session_backend("redis")
    assert (refused.value.key, refused.value.value) == ("session.backend", "redis")
    assert "pip install 'fw-web[redis]'" in str(refused.value)


def test_a_postgresql_dsn_without_its_extra_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "asyncpg", None)
    with pytest.raises(StartupError) as refused:
        create_engine("postgresql://fw:secret@127.0.0.1:5432/app")
    assert refused.value.key == "middleware.rdb.dsn"
    assert "secret" not in str(refused.value)
    assert "pip install 'fw-web[postgres]'" in str(refused.value)
