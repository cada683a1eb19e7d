"""Presence and the remembered visitor belong to browser modes: an API mode refuses them."""

from __future__ import annotations

import asyncio

import pytest
from auth_oidc.support import to_toml

import fw
from fw.errors import StartupError


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"presence": {"enabled": True}}, "auth.assurance.presence.enabled"),
        ({"hint": {"enabled": True}}, "auth.assurance.hint.enabled"),
    ],
)
def test_jwt_only_refuses_browser_assurance_settings(
    table: dict[str, object], key: str, sqlite_dsn: str
) -> None:
    toml = to_toml(
        {
            "auth": {"enabled": True, "mode": "jwt_only", "assurance": table},
            "middleware": {"rdb": {"dsn": sqlite_dsn}},
        }
    )
    with fw.testing.configured(toml=toml):
        app = fw.App()
        with pytest.raises(StartupError) as caught:
            asyncio.run(app.startup())
    assert caught.value.key == key
    assert "does not read it" in str(caught.value)
