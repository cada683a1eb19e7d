"""``auth.shared_device = true``: global logout where a provider keeps a session, no remembered
visitor, and a provider sign-in that always asks for proof (``prompt=login`` alone)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from auth_presence.support import signed_in, toml_for

import fw
from fw.errors import StartupError

HTTPS_OIDC = {
    "issuer": "https://id.example.com",
    "client_id": "app",
    "redirect_url": "https://app.example/cb",
}
HTTPS_X = {"provider": "x", "client_id": "app", "redirect_url": "https://app.example/cb"}
HINT_SECRET = {"AUTH_HINT_SECRET": secrets.token_urlsafe(32)}
CLIENT_SECRETS = {
    "oidc_only": {"AUTH_OIDC_CLIENT_SECRET": "s3cret"},
    "oidc_passkey": {"AUTH_OIDC_CLIENT_SECRET": "s3cret"},
    "oauth_only": {"AUTH_OAUTH_CLIENT_SECRET": "s3cret"},
    "passkey_only": {},
}
HINT = {"hint": {"enabled": True}}


def start(mode: str, dsn: str, **changes: Any) -> None:
    provider = None if mode == "passkey_only" else HTTPS_X if mode == "oauth_only" else HTTPS_OIDC
    with fw.testing.configured(
        toml=toml_for(mode, dsn, provider=provider, **changes), env={**CLIENT_SECRETS[mode], **HINT_SECRET}
    ):
        app = fw.App()

        async def run() -> None:
            await app.startup()
            await app.shutdown()

        asyncio.run(run())


def refused(mode: str, dsn: str, key: str, **changes: Any) -> StartupError:
    with pytest.raises(StartupError) as caught:
        start(mode, dsn, **changes)
    assert caught.value.key == key, caught.value
    return caught.value


@pytest.mark.parametrize("mode", ["oidc_only", "oidc_passkey"])
def test_a_shared_device_requires_global_logout_at_the_provider(mode: str, sqlite_dsn: str) -> None:
    error = refused(mode, sqlite_dsn, "auth.oidc.logout_scope", shared_device=True)
    assert "auth.shared_device = true" in str(error) and '"global"' in str(error)
    start(mode, sqlite_dsn, shared_device=True, oidc={"logout_scope": "global"})


@pytest.mark.parametrize("mode", ["oidc_only", "oidc_passkey"])
def test_a_shared_device_forbids_the_remembered_visitor(mode: str, sqlite_dsn: str) -> None:
    error = refused(
        mode,
        sqlite_dsn,
        "auth.assurance.hint.enabled",
        shared_device=True,
        oidc={"logout_scope": "global"},
        assurance=HINT,
    )
    assert "auth.shared_device = true forbids" in str(error)


def test_passkey_only_takes_a_shared_device_without_a_provider_to_sign_out_of(sqlite_dsn: str) -> None:
    start("passkey_only", sqlite_dsn, shared_device=True)
    refused("passkey_only", sqlite_dsn, "auth.assurance.hint.enabled", shared_device=True, assurance=HINT)


def test_oauth_only_refuses_a_shared_device_it_cannot_sign_out_of(sqlite_dsn: str) -> None:
    refused("oauth_only", sqlite_dsn, "auth.shared_device", shared_device=True)


def test_presence_goes_with_a_shared_device(sqlite_dsn: str) -> None:
    start(
        "oidc_only",
        sqlite_dsn,
        shared_device=True,
        oidc={"logout_scope": "global"},
        assurance={"presence": {"enabled": True}},
    )


def prompt_of(location: str) -> list[str]:
    return parse_qs(urlsplit(location).query).get("prompt", [])


@pytest.mark.parametrize("mode", ["oidc_only", "oidc_passkey"])
def test_on_a_shared_device_every_sign_in_asks_for_proof_and_never_for_an_account_choice(
    mode: str, sqlite_dsn: str
) -> None:
    with signed_in(
        mode, sqlite_dsn, sign_in=False, shared_device=True, oidc={"logout_scope": "global"}
    ) as tab:
        first = tab.client.get("/auth/login", follow_redirects=False)
        assert prompt_of(first.headers["location"]) == ["login"]  # even with no logout before it
        tab.sign_in()
        assert tab.logout().status_code == 303
        again = tab.client.get("/auth/login", follow_redirects=False)
        assert prompt_of(again.headers["location"]) == ["login"]


def test_elsewhere_the_first_sign_in_is_silent_and_a_reconfirm_also_offers_the_account_choice(
    sqlite_dsn: str,
) -> None:
    with signed_in("oidc_only", sqlite_dsn, sign_in=False) as tab:
        assert prompt_of(tab.client.get("/auth/login", follow_redirects=False).headers["location"]) == []
        tab.sign_in()
        tab.logout()
        again = tab.client.get("/auth/login", follow_redirects=False)
        assert prompt_of(again.headers["location"]) == ["login select_account"]
