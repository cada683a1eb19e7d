"""Development conveniences stop a start outside ``APP_ENV=dev``, and keep working in ``dev``.

``allow_loopback_http = true`` (plain http to a loopback issuer or endpoint, a callback derived
from the request) is how a laptop signs in against the development provider; under ``prod``,
``stg`` or any other environment it is a startup error naming the key and the value, in every
mode that reads it. A plain-http ``redirect_url`` on a host that is not loopback is refused in
every environment. ``dev`` is what an unset ``APP_ENV`` means, and so what
:func:`fw.testing.configured` runs as unless a test says otherwise.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import fw
from fw.auth.plugin import Refused
from fw.testing import TestIdentityProvider, configured

LOOPBACK_ISSUER = "http://127.0.0.1:9"

COMMON = {"AUTH_ENABLED": "true", "SESSION_ENABLED": "true"}

#: Each mode with allow_loopback_http on and everything else it needs to pass its startup rules.
MODES: dict[str, tuple[str, dict[str, str]]] = {
    "oidc_only": (
        "auth.oidc.allow_loopback_http",
        {
            "AUTH_MODE": "oidc_only",
            "AUTH_OIDC_ISSUER": LOOPBACK_ISSUER,
            "AUTH_OIDC_CLIENT_ID": "shop",
            "AUTH_OIDC_CLIENT_SECRET": "shop-client-secret",
            "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true",
        },
    ),
    "oauth_only": (
        "auth.oauth.allow_loopback_http",
        {
            "AUTH_MODE": "oauth_only",
            "AUTH_OAUTH_PROVIDER": "x",
            "AUTH_OAUTH_CLIENT_ID": "shop",
            "AUTH_OAUTH_CLIENT_SECRET": "shop-client-secret",
            "AUTH_OAUTH_ALLOW_LOOPBACK_HTTP": "true",
            "AUTH_OAUTH_AUTHORIZATION_ENDPOINT": f"{LOOPBACK_ISSUER}/i/oauth2/authorize",
            "AUTH_OAUTH_TOKEN_ENDPOINT": f"{LOOPBACK_ISSUER}/2/oauth2/token",
            "AUTH_OAUTH_USER_ENDPOINT": f"{LOOPBACK_ISSUER}/2/users/me",
        },
    ),
    "jwt_only": (
        "auth.jwt.allow_loopback_http",
        {
            "AUTH_MODE": "jwt_only",
            "AUTH_JWT_ISSUER": LOOPBACK_ISSUER,
            "AUTH_JWT_AUDIENCE": "api",
            "AUTH_JWT_ALGORITHMS": "RS256",
            "AUTH_JWT_ADMISSION": "authenticated",
            "AUTH_JWT_MAX_TOKEN_LIFETIME": "1h",
            "AUTH_JWT_REVOCATION_MODE": "off",
            "AUTH_JWT_ALLOW_LOOPBACK_HTTP": "true",
        },
    ),
}

HTTPS_OIDC = {
    **MODES["oidc_only"][1],
    "AUTH_OIDC_ISSUER": "https://login.example",
    "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "false",
}


def startup_refusal(env: dict[str, str]) -> fw.StartupError:
    with configured(env={**COMMON, **env}), pytest.raises(fw.StartupError) as refused:
        asyncio.run(fw.App().startup())
    return refused.value


def rule_refusals(env: dict[str, str]) -> list[Exception]:
    """What the startup rules refuse (stores and the provider are not contacted)."""
    with configured(env={**COMMON, **env}):
        return [extension.error for extension in fw.App().extensions if isinstance(extension, Refused)]


# Outside dev.
@pytest.mark.parametrize("app_env", ["prod", "stg"])
@pytest.mark.parametrize("mode", list(MODES))
def test_allow_loopback_http_outside_dev_is_a_startup_error_naming_the_key_and_value(
    mode: str, app_env: str
) -> None:
    key, env = MODES[mode]
    error = startup_refusal({**env, "APP_ENV": app_env})
    assert (error.key, error.value) == (key, True)
    assert str(error).startswith(f"{key} = True: plain http on loopback is for development only")
    assert f"APP_ENV is {app_env}" in str(error)


def test_oidc_passkey_refuses_allow_loopback_http_outside_dev_too() -> None:
    env = {**MODES["oidc_only"][1], "AUTH_MODE": "oidc_passkey", "APP_ENV": "prod"}
    error = startup_refusal(env)
    assert (error.key, error.value) == ("auth.oidc.allow_loopback_http", True)


@pytest.mark.parametrize("app_env", ["prod", "dev"])
def test_a_plain_http_redirect_url_on_a_public_host_is_a_startup_error_naming_it(app_env: str) -> None:
    url = "http://shop.example.com/auth/callback"
    error = startup_refusal({**HTTPS_OIDC, "AUTH_OIDC_REDIRECT_URL": url, "APP_ENV": app_env})
    assert str(error) == f"auth.oidc.redirect_url = '{url}': must be https outside loopback development"


def test_a_loopback_http_redirect_url_outside_dev_is_a_startup_error_naming_it() -> None:
    url = "http://localhost:8000/auth/callback"
    error = startup_refusal({**HTTPS_OIDC, "AUTH_OIDC_REDIRECT_URL": url, "APP_ENV": "prod"})
    assert (error.key, error.value) == ("auth.oidc.redirect_url", url)


# In dev.
@pytest.mark.parametrize("app_env", [None, "dev"])
@pytest.mark.parametrize("mode", list(MODES))
def test_allow_loopback_http_passes_the_startup_rules_in_dev(mode: str, app_env: str | None) -> None:
    env = dict(MODES[mode][1])
    if app_env is not None:
        env["APP_ENV"] = app_env
    assert rule_refusals(env) == []


async def test_an_app_signing_in_at_a_loopback_provider_starts_in_dev(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    env: dict[str, Any] = {
        **MODES["oidc_only"][1],
        "AUTH_OIDC_ISSUER": idp.issuer,
        "AUTH_OIDC_CLIENT_ID": idp.client_id,
        "AUTH_OIDC_CLIENT_SECRET": idp.client_secret,
        "AUTH_OIDC_REDIRECT_URL": "http://localhost:8000/auth/callback",
        "MIDDLEWARE_RDB_DSN": sqlite_dsn,
        "APP_ENV": "dev",
    }
    with configured(env={**COMMON, **env}):
        app = fw.App()
        await app.startup()
        await app.shutdown()
