"""Browser login refuses to start, with the key and the fix, until every precondition holds."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

import fw
from auth_oidc.support import layers, session_settings
from fw.auth.settings import Claim, Protection
from fw.errors import ConfigError, StartupError
from fw.testing import configured


def start(dsn: str, oidc: dict[str, Any] | None = None, **changes: Any) -> None:
    """Start an App whose configuration is a working oidc_only setup with these changes."""
    oidc = {"allow_loopback_http": False, **(oidc or {})}
    with configured(**layers("https://id.example.com", dsn, oidc=oidc, **changes)):
        app = fw.App()

        async def run() -> None:
            await app.startup()
            await app.shutdown()

        asyncio.run(run())


def refused(dsn: str, key: str, **kwargs: Any) -> StartupError:
    with pytest.raises(StartupError) as caught:
        start(dsn, **kwargs)
    assert caught.value.key == key, caught.value
    return caught.value


def test_valid_settings_start(sqlite_dsn: str) -> None:
    start(sqlite_dsn, oidc={"redirect_url": "https://app.example.com/auth/callback"})


def test_sessions_must_be_enabled(sqlite_dsn: str) -> None:
    refused(sqlite_dsn, "session.enabled", session=session_settings(enabled=False))


@pytest.mark.parametrize("name", ["issuer", "client_id", "client_secret"])
def test_provider_credentials_are_required(sqlite_dsn: str, name: str) -> None:
    error = refused(sqlite_dsn, f"auth.oidc.{name}", oidc={name: "", "redirect_url": "https://a.example/cb"})
    assert f"auth.oidc.{name}" in str(error) and "required" in str(error)


def test_the_issuer_must_be_https(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn,
        "auth.oidc.issuer",
        oidc={"issuer": "http://id.example.com", "redirect_url": "https://a/cb"},
    )


def test_an_http_loopback_issuer_needs_allow_loopback_http(sqlite_dsn: str) -> None:
    error = refused(
        sqlite_dsn,
        "auth.oidc.issuer",
        oidc={"issuer": "http://127.0.0.1:9000", "redirect_url": "https://a/cb"},
    )
    assert "allow_loopback_http" in str(error)
    start(sqlite_dsn, oidc={"issuer": "http://127.0.0.1:9000", "allow_loopback_http": True})


def test_allow_loopback_http_never_admits_a_remote_http_issuer(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn, "auth.oidc.issuer", oidc={"issuer": "http://id.example.com", "allow_loopback_http": True}
    )


@pytest.mark.parametrize(
    "url", ["", "/auth/callback", "http://app.example.com/auth/callback", "app/callback"]
)
def test_outside_loopback_development_redirect_url_is_an_absolute_https_url(
    sqlite_dsn: str, url: str
) -> None:
    refused(sqlite_dsn, "auth.oidc.redirect_url", oidc={"redirect_url": url})


@pytest.mark.parametrize("path", ["auth/login", "//evil/login", "/a//b", "https://x/login"])
@pytest.mark.parametrize("name", ["login_path", "callback_path", "logout_path", "post_login_path"])
def test_paths_are_root_relative_without_double_slashes(sqlite_dsn: str, name: str, path: str) -> None:
    refused(sqlite_dsn, f"auth.{name}", oidc={"redirect_url": "https://a.example/cb"}, **{name: path})


@pytest.mark.parametrize(
    ("session", "key", "received"),
    [
        ({"ttl": "0s"}, "auth.session.ttl", "0s"),
        ({"ttl": "-90s"}, "auth.session.ttl", "-1m30s"),
        ({"idle_timeout": "-1h"}, "auth.session.idle_timeout", "-1h0m0s"),
    ],
)
def test_a_refused_session_lifetime_is_named_as_the_configuration_writes_it(
    sqlite_dsn: str, session: dict[str, str], key: str, received: str
) -> None:
    oidc = {"allow_loopback_http": False, "redirect_url": "https://a.example/cb"}
    arguments = layers("https://id.example.com", sqlite_dsn, oidc=oidc)
    lifetimes = "".join(f'{name} = "{value}"\n' for name, value in session.items())
    arguments["toml"] += "[auth.session]\n" + lifetimes
    with configured(**arguments), pytest.raises(StartupError) as caught:
        asyncio.run(fw.App().startup())
    assert caught.value.key == key and caught.value.value == received
    assert f"{key} = {received!r}: " in str(caught.value)


def test_protection_patterns_are_checked(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn,
        "auth.protection.include",
        oidc={"redirect_url": "https://a.example/cb"},
        protection=Protection(include=["admin/"], exclude=[], unauthenticated="redirect"),
    )


def test_admission_existing_requires_auto_provision_off(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn, "auth.oidc.auto_provision", oidc={"admission": "existing", "redirect_url": "https://a/cb"}
    )


def test_admission_claim_requires_a_pointer(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn,
        "auth.oidc.claim.path",
        oidc={"admission": "claim", "claim": Claim("", ["x"], "any"), "redirect_url": "https://a/cb"},
    )


def test_the_removed_provider_logout_names_logout_scope(sqlite_dsn: str) -> None:
    with pytest.raises(ConfigError) as caught:
        start(sqlite_dsn, oidc={"provider_logout": True, "redirect_url": "https://a/cb"})
    assert caught.value.key == "auth.oidc.provider_logout"
    assert "logout_scope" in str(caught.value)


def test_a_scope_entry_holding_two_scopes_is_refused(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn, "auth.oidc.scopes", oidc={"scopes": ["profile email"], "redirect_url": "https://a/cb"}
    )


def test_missing_migrations_name_fw_migrate(tmp_path: Any) -> None:
    error = refused(
        f"sqlite:///{tmp_path / 'empty.sqlite3'}", "middleware.rdb.dsn", oidc={"redirect_url": "https://a/cb"}
    )
    assert "fw migrate" in str(error)


def test_an_unreachable_database_is_refused() -> None:
    refused(
        "postgresql://nobody@127.0.0.1:1/none", "middleware.rdb.dsn", oidc={"redirect_url": "https://a/cb"}
    )


def test_the_cookie_backend_needs_a_keyring_secret(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn,
        "session.keyring.secret",
        session=session_settings("cookie"),
        oidc={"redirect_url": "https://a/cb"},
    )


def test_an_unreachable_redis_is_refused(sqlite_dsn: str) -> None:
    refused(
        sqlite_dsn,
        "session.redis_url",
        session=session_settings("redis", redis_url="redis://127.0.0.1:1/0"),
        oidc={"redirect_url": "https://a/cb"},
    )


def test_a_session_backend_that_is_no_choice_is_refused_by_the_loader(sqlite_dsn: str) -> None:
    with pytest.raises(ConfigError) as caught:
        start(sqlite_dsn, session=session_settings("memcached"), oidc={"redirect_url": "https://a/cb"})
    assert caught.value.key == "session.backend" and "'memcached'" in str(caught.value)


def test_an_auth_backend_that_is_no_choice_is_refused_by_the_loader(sqlite_dsn: str) -> None:
    with pytest.raises(ConfigError) as caught:
        start(sqlite_dsn, backend="memcached", oidc={"redirect_url": "https://a/cb"})
    assert caught.value.key == "auth.backend" and "'memcached'" in str(caught.value)


def test_the_redis_session_backend_without_its_extra_names_the_pip_install(
    sqlite_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    error = refused(
        sqlite_dsn,
        "session.backend",
        session=session_settings("redis", redis_url="redis://127.0.0.1:1/0"),
        oidc={"redirect_url": "https://a/cb"},
    )
    assert "pip install 'fw-web[redis]'" in str(error)
