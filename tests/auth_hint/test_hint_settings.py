"""``[auth.assurance.hint]`` and ``[auth.assurance.presence]`` at startup: what refuses to start,
naming the key, and how the secret travels (``AUTH_HINT_SECRET``, masked in the summary)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from typing import Any

import pytest
from auth_presence.support import toml_for

import fw
import fw.configuration.registry as registry
from fw.auth.settings import AuthSettings
from fw.errors import StartupError

HTTPS_OIDC = {
    "issuer": "https://id.example.com",
    "client_id": "app",
    "redirect_url": "https://app.example/cb",
}
CLIENT = {"AUTH_OIDC_CLIENT_SECRET": "s3cret"}


def start(dsn: str, env: Mapping[str, str] | None = None, **changes: Any) -> None:
    """Start (and stop) an ``oidc_only`` App with these changes."""
    with fw.testing.configured(
        toml=toml_for("oidc_only", dsn, provider=HTTPS_OIDC, **changes), env={**CLIENT, **(env or {})}
    ):
        app = fw.App()

        async def run() -> None:
            await app.startup()
            await app.shutdown()

        asyncio.run(run())


def refused(dsn: str, key: str, env: Mapping[str, str] | None = None, **changes: Any) -> StartupError:
    with pytest.raises(StartupError) as caught:
        start(dsn, env, **changes)
    assert caught.value.key == key, caught.value
    return caught.value


def test_remembering_needs_a_secret_named_by_its_variable(sqlite_dsn: str) -> None:
    error = refused(sqlite_dsn, "auth.assurance.hint.secret", assurance={"hint": {"enabled": True}})
    assert "AUTH_HINT_SECRET" in str(error) and "32 or more random bytes" in str(error)


@pytest.mark.parametrize(
    "weak", ["short", "x" * 42, f"{secrets.token_urlsafe(32)} tooweak", "not base64!" * 5]
)
def test_a_weak_secret_is_refused_without_showing_it(sqlite_dsn: str, weak: str) -> None:
    error = refused(
        sqlite_dsn,
        "auth.assurance.hint.secret",
        env={"AUTH_HINT_SECRET": weak},
        assurance={"hint": {"enabled": True}},
    )
    assert weak not in str(error) and "*****" in str(error)


def test_a_strong_secret_from_the_environment_starts(sqlite_dsn: str) -> None:
    start(
        sqlite_dsn, env={"AUTH_HINT_SECRET": secrets.token_urlsafe(32)}, assurance={"hint": {"enabled": True}}
    )


def test_two_secrets_listed_for_a_rotation_start(sqlite_dsn: str) -> None:
    rotation = f"{secrets.token_urlsafe(32)}, {secrets.token_urlsafe(48)}"
    start(sqlite_dsn, env={"AUTH_HINT_SECRET": rotation}, assurance={"hint": {"enabled": True}})


def test_a_ttl_of_zero_disables_remembering_and_needs_no_secret(sqlite_dsn: str) -> None:
    start(sqlite_dsn, assurance={"hint": {"enabled": True, "ttl": "0s"}})


@pytest.mark.parametrize("name", ["ttl", "idle_timeout"])
def test_a_negative_lifetime_is_refused(sqlite_dsn: str, name: str) -> None:
    refused(
        sqlite_dsn,
        f"auth.assurance.hint.{name}",
        env={"AUTH_HINT_SECRET": secrets.token_urlsafe(32)},
        assurance={"hint": {"enabled": True, name: "-1h"}},
    )


def test_the_hint_off_needs_nothing(sqlite_dsn: str) -> None:
    start(sqlite_dsn, assurance={"hint": {"enabled": False}})


def test_presence_with_absent_after_not_beyond_the_interval_refuses_to_start(sqlite_dsn: str) -> None:
    error = refused(
        sqlite_dsn,
        "auth.assurance.presence.absent_after",
        assurance={"presence": {"enabled": True, "interval": "5m", "absent_after": "5m"}},
    )
    assert "more than interval (5m0s)" in str(error)


def test_presence_with_short_test_settings_starts(sqlite_dsn: str) -> None:
    start(sqlite_dsn, assurance={"presence": {"enabled": True, "interval": "1s", "absent_after": "3s"}})


def test_the_secret_comes_from_auth_hint_secret_and_is_masked_in_the_summary(sqlite_dsn: str) -> None:
    secret = secrets.token_urlsafe(32)
    toml = toml_for("oidc_only", sqlite_dsn, provider=HTTPS_OIDC, assurance={"hint": {"enabled": True}})
    with fw.testing.configured(toml=toml, env={**CLIENT, "AUTH_HINT_SECRET": secret}):
        assert fw.config(AuthSettings).assurance.hint.secret == secret
        [item] = [item for item in registry.summary_items() if item.key == "auth.assurance.hint.secret"]
        assert item.value == "*****" and item.source == "env:AUTH_HINT_SECRET"
        assert secret not in repr(registry.summary_items())


def test_the_hint_defaults_are_off_720h_and_336h(sqlite_dsn: str) -> None:
    with fw.testing.configured(toml=toml_for("oidc_only", sqlite_dsn, provider=HTTPS_OIDC), env=CLIENT):
        hint = fw.config(AuthSettings).assurance.hint
        presence = fw.config(AuthSettings).assurance.presence
    assert (hint.enabled, hint.ttl.total_seconds(), hint.idle_timeout.total_seconds()) == (
        False,
        720 * 3600,
        336 * 3600,
    )
    assert (presence.enabled, presence.interval.total_seconds(), presence.absent_after.total_seconds()) == (
        False,
        60,
        1800,
    )
