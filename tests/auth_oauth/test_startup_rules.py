"""What ``oauth_only`` refuses before it starts, each naming the key and the fix."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import fw
from auth_oauth.support import oauth_layers
from fw.testing import TestOAuthProvider, configured


def refusal(x: TestOAuthProvider, dsn: str, **changes: Any) -> fw.StartupError:
    with configured(**oauth_layers(x, dsn, **changes)), pytest.raises(fw.StartupError) as refused:
        asyncio.run(fw.App().startup())
    return refused.value


def test_an_entry_holding_two_scopes_is_a_startup_error(x: TestOAuthProvider, sqlite_dsn: str) -> None:
    error = refusal(x, sqlite_dsn, oauth={"scopes": ["users.read tweet.read"]})
    assert (error.key, error.value) == ("auth.oauth.scopes", "users.read tweet.read")


def test_asking_for_a_refresh_token_is_a_startup_error(x: TestOAuthProvider, sqlite_dsn: str) -> None:
    error = refusal(x, sqlite_dsn, oauth={"scopes": ["users.read", "offline.access"]})
    assert error.key == "auth.oauth.scopes" and "refresh token" in error.fix


REPORTED = "sub, preferred_username, name, picture"


def test_an_identity_claim_the_provider_does_not_report_lists_the_reported_ones(
    x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    error = refusal(x, sqlite_dsn, oauth={"identity_claim": "username"})
    assert error.key == "auth.oauth.identity_claim" and REPORTED in error.fix


def test_a_registered_claim_the_provider_does_not_report_lists_the_reported_ones(
    x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    error = refusal(
        x, sqlite_dsn, oauth={"admission": "registered", "registered_claims": "sub, profile_image_url"}
    )
    assert (error.key, error.value) == ("auth.oauth.registered_claims", "profile_image_url")
    assert REPORTED in error.fix


def test_a_global_logout_scope_is_a_startup_error(x: TestOAuthProvider, sqlite_dsn: str) -> None:
    error = refusal(x, sqlite_dsn, oidc={"logout_scope": "global"})
    assert error.key == "auth.oidc.logout_scope" and "auth.mode = oauth_only does not read it" in error.fix


def test_shared_device_is_a_startup_error(x: TestOAuthProvider, sqlite_dsn: str) -> None:
    error = refusal(x, sqlite_dsn, shared_device=True)
    assert error.key == "auth.shared_device" and "auth.mode = oauth_only does not read it" in error.fix


def test_an_http_endpoint_needs_loopback_and_allow_loopback_http(
    x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    error = refusal(x, sqlite_dsn, oauth={"user_endpoint": "http://api.example/2/users/me"})
    assert error.key == "auth.oauth.user_endpoint" and "https" in error.fix
    error = refusal(
        x,
        sqlite_dsn,
        oauth={"allow_loopback_http": False, "redirect_url": "https://app.example/auth/callback"},
    )
    assert error.key == "auth.oauth.authorization_endpoint" and "allow_loopback_http" in error.fix


def test_an_empty_redirect_url_outside_loopback_development_is_a_startup_error(
    x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    error = refusal(
        x,
        sqlite_dsn,
        oauth={
            "allow_loopback_http": False,
            "authorization_endpoint": "",
            "token_endpoint": "",
            "user_endpoint": "",
        },
    )
    assert error.key == "auth.oauth.redirect_url"


def test_existing_admission_needs_auto_provision_off(x: TestOAuthProvider, sqlite_dsn: str) -> None:
    error = refusal(x, sqlite_dsn, oauth={"admission": "existing"})
    assert error.key == "auth.oauth.auto_provision"


def test_a_provider_fw_does_not_define_is_refused_by_the_loader(
    x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    layers = oauth_layers(x, sqlite_dsn)
    toml = layers["toml"].replace('provider = "x"', 'provider = "github"')
    with (
        pytest.raises(fw.ConfigError, match="'github' is not a choice; use one of: x"),
        configured(toml=toml),
    ):
        pass


def test_a_missing_provider_is_required(x: TestOAuthProvider, sqlite_dsn: str) -> None:
    error = refusal(x, sqlite_dsn, oauth={"provider": ""})
    assert error.key == "auth.oauth.provider"
