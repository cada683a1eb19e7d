"""The one registry of modes: what it holds, what it refuses, and the table ownership it derives."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import fw
from auth_modes.sketch import SketchMode
from fw.auth.modes import registry
from fw.testing import configured


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_modes", dict(registry._modes))


def start(toml: str, env: dict[str, str] | None = None) -> fw.StartupError:
    with configured(toml=toml, env=env), pytest.raises(fw.StartupError) as refused:
        asyncio.run(fw.App().startup())
    return refused.value


def test_the_modes_fw_ships_are_registered_in_the_order_messages_list_them() -> None:
    names = [mode.name for mode in registry.registered_modes()]
    assert names == ["oidc_only", "oidc_passkey", "passkey_only", "oauth_only", "jwt_only"]
    assert fw.auth.find_mode("jwt_only") is registry.registered_modes()[-1]
    assert fw.auth.find_mode("magic") is None and fw.auth.find_mode(None) is None


def test_another_mode_under_a_taken_name_is_refused() -> None:
    with pytest.raises(RuntimeError, match="already registered"):
        fw.auth.register_mode(SketchMode(name="jwt_only"))


def test_registering_the_same_mode_again_is_harmless() -> None:
    mode = registry.registered_modes()[0]
    assert fw.auth.register_mode(mode) is mode
    assert len(registry.registered_modes()) == 5


@pytest.mark.parametrize("name", ["", "Door", "door-way", "9door"])
def test_a_mode_name_is_a_lower_case_identifier(name: str) -> None:
    with pytest.raises(ValueError, match="mode name"):
        fw.auth.register_mode(SketchMode(name=name))


def test_each_table_belongs_to_the_modes_that_read_it() -> None:
    assert registry.readers("oidc") == ["oidc_only", "oidc_passkey"]
    assert registry.readers("jwt") == ["jwt_only"]
    assert registry.readers("bootstrap") == ["passkey_only"]
    assert registry.readers("shared_device") == ["oidc_only", "oidc_passkey", "passkey_only"]
    browser = ["oidc_only", "oidc_passkey", "passkey_only", "oauth_only"]
    assert registry.readers("session") == browser and registry.readers("assurance") == browser


def test_the_summary_filter_hides_exactly_the_tables_the_mode_does_not_read() -> None:
    values: dict[str, Any] = {"auth.enabled": True, "auth.mode": "jwt_only"}
    unread = set(registry.unread_tables(values))
    assert unread == {f"auth.{table}" for table in registry.mode_tables()} - {"auth.jwt"}
    assert registry.unread_tables({**values, "auth.enabled": False}) == []
    assert registry.unread_tables({**values, "auth.mode": "magic"}) == []


def test_oauth_only_is_provided_its_own_checks_run_once_its_keys_are_set() -> None:
    error = start(
        '[auth]\nenabled = true\nmode = "oauth_only"\n[auth.oauth]\nprovider = "x"\n',
        {"AUTH_OAUTH_CLIENT_ID": "app", "AUTH_OAUTH_CLIENT_SECRET": "s3cret"},
    )
    assert error.key == "session.enabled"


def test_a_mode_not_provided_yet_still_checks_its_required_keys_first() -> None:
    error = start(
        '[auth]\nenabled = true\nmode = "oidc_passkey"\n[auth.oidc]\nissuer = "https://login.example"\n'
    )
    assert error.key == "auth.oidc.client_id"
    error = start(
        '[auth]\nenabled = true\nmode = "oidc_passkey"\n[auth.oidc]\nissuer = "https://login.example"\n',
        {"AUTH_OIDC_CLIENT_ID": "app", "AUTH_OIDC_CLIENT_SECRET": "s3cret"},
    )
    assert error.key == "auth.recovery.policy"


def test_a_table_of_a_mode_not_provided_yet_is_still_foreign_to_the_others() -> None:
    error = start('[auth]\nenabled = true\nmode = "oidc_only"\n[auth.passkey]\npath = "/keys"\n')
    assert error.key == "auth.passkey.path"
    assert "it belongs to oidc_passkey, passkey_only" in error.fix
