"""``[[auth.assurance.policy]]`` and the requirement builders: broken entries and unknown policy
names on guarded routes refuse the App's start, naming the key."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

import pytest
from auth_oidc.support import layers

import fw
from auth_assurance.support import POLICIES, policies_toml
from fw.auth.assurance.policies import Policies
from fw.auth.assurance.requirements import Window
from fw.auth.settings import AssurancePolicy
from fw.errors import ConfigError, StartupError
from fw.testing import configured


def start(dsn: str, entries: Sequence[Mapping[str, Any]], app: fw.App | None = None) -> None:
    arguments = layers(
        "https://id.example.com",
        dsn,
        oidc={"redirect_url": "https://app.example.com/cb", "allow_loopback_http": False},
    )
    arguments["toml"] += policies_toml(entries)
    with configured(**arguments):
        started = app or fw.App()

        async def run() -> None:
            await started.startup()
            await started.shutdown()

        asyncio.run(run())


def test_valid_policies_start(sqlite_dsn: str) -> None:
    start(sqlite_dsn, POLICIES)


@pytest.mark.parametrize(
    ("entries", "key", "words", "received"),
    [
        ([{"max_age": "5m"}], "auth.assurance.policy[0].name", "needs a name", "''"),
        ([{"name": "  ", "max_age": "5m"}], "auth.assurance.policy[0].name", "needs a name", "'  '"),
        (
            [{"name": "a", "max_age": "5m"}, {"name": "a", "max_age": "1m"}],
            "auth.assurance.policy[1].name",
            "defined twice",
            "'a'",
        ),
        (
            [{"name": "a", "max_age": "5m"}, {"name": "neg", "max_age": "-90s"}],
            "auth.assurance.policy[1].max_age",
            "negative",
            "'-1m30s'",
        ),
    ],
)
def test_a_broken_policy_refuses_to_start_naming_its_key_and_the_value_received(
    sqlite_dsn: str, entries: list[dict[str, Any]], key: str, words: str, received: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        start(sqlite_dsn, entries)
    assert caught.value.key == key and words in caught.value.reason
    assert received in caught.value.reason  # as the summary shows it
    assert caught.value.source.startswith("file:")


def test_a_guarded_route_naming_an_unknown_policy_refuses_to_start(sqlite_dsn: str) -> None:
    app = fw.App()

    @app.route("GET /danger")
    @fw.auth.ensure(fw.auth.policy("danger_zone"))
    async def danger(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({})

    with pytest.raises(StartupError) as caught:
        start(sqlite_dsn, POLICIES, app)
    assert caught.value.key == "auth.assurance.policy" and caught.value.value == "danger_zone"
    assert "GET /danger" in str(caught.value) and "'read_settings'" in str(caught.value)


def test_a_guarded_api_route_naming_a_configured_policy_starts(sqlite_dsn: str) -> None:
    app = fw.App()

    @app.route("POST /api/danger")
    @fw.auth.ensure_api(fw.auth.policy("write_settings"))
    async def danger(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({})

    start(sqlite_dsn, POLICIES, app)


def test_policies_resolve_to_windows_and_requirements_to_their_own() -> None:
    policies = Policies.from_settings([AssurancePolicy("p", timedelta(seconds=90), True)])
    assert policies.resolve(fw.auth.policy("p")) == Window(90, True)
    assert policies.resolve(fw.auth.policy("q")) is None
    assert policies.resolve(fw.auth.max_age(timedelta(minutes=2))) == Window(120, False)
    assert policies.resolve(fw.auth.confirmed(timedelta(0))) == Window(0, True)
    assert policies.resolve(fw.auth.confirmed(timedelta(milliseconds=1500))) == Window(2, True)


@pytest.mark.parametrize("build", [fw.auth.max_age, fw.auth.confirmed])
def test_a_negative_window_is_refused_where_the_guard_is_written(build: Any) -> None:
    with pytest.raises(ValueError, match="negative"):
        build(timedelta(seconds=-1))
    with pytest.raises(TypeError, match="timedelta"):
        build(300)


def test_a_guard_needs_a_requirement() -> None:
    with pytest.raises(TypeError, match="requirement"):
        fw.auth.ensure(lambda request: None)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="name"):
        fw.auth.policy("")
