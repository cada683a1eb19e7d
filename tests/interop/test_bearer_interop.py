"""fw's bearer verification against an independent, certified provider (oidc-provider).

Access tokens come from the provider's client_credentials grant with a resource indicator, so
they are RFC 9068 JWT access tokens (``typ: at+jwt``) signed with keys only the provider holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from auth_jwt.conftest import bearer, serving
from auth_jwt.settings import auth_settings, jwt_settings

from .conftest import RunningProvider, worker

API = "urn:fw:orders-api"
CONFIG = {
    "clients": [
        worker("orders.read orders.write"),
    ],
    "resources": {
        API: {"scope": "orders.read orders.write"},
        "urn:fw:billing-api": {"scope": "orders.read"},
    },
}

Start = Callable[[dict[str, Any]], RunningProvider]


def _token(provider: RunningProvider, **params: str) -> str:
    response = provider.client_credentials("orders-worker", "interop-secret-1", **params)
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


async def test_an_access_token_from_a_certified_provider_is_accepted(start_provider: Start) -> None:
    provider = start_provider(CONFIG)
    settings = auth_settings(jwt_settings(provider.issuer, audience=[API], required_scopes=["orders.read"]))
    token = _token(provider, resource=API, scope="orders.read")
    async with serving(settings) as (client, _):
        response = await client.get("/api/me", headers=bearer(token))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["account_id"] == "orders-worker"
    assert body["claims"]["aud"] == API
    assert body["claims"]["iss"] == provider.issuer


async def test_a_provider_token_for_another_audience_is_refused(start_provider: Start) -> None:
    provider = start_provider(CONFIG)
    settings = auth_settings(jwt_settings(provider.issuer, audience=[API]))
    token = _token(provider, resource="urn:fw:billing-api", scope="orders.read")
    async with serving(settings) as (client, _):
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401


async def test_a_provider_token_without_the_required_scope_is_refused(start_provider: Start) -> None:
    provider = start_provider(CONFIG)
    settings = auth_settings(jwt_settings(provider.issuer, audience=[API], required_scopes=["orders.write"]))
    token = _token(provider, resource=API, scope="orders.read")
    async with serving(settings) as (client, _):
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401
        granted = _token(provider, resource=API, scope="orders.read orders.write")
        assert (await client.get("/api/me", headers=bearer(granted))).status_code == 200


async def test_tokens_of_another_provider_instance_are_refused(start_provider: Start) -> None:
    provider = start_provider(CONFIG)
    impostor = start_provider(CONFIG)
    settings = auth_settings(jwt_settings(provider.issuer, audience=[API]))
    foreign = _token(impostor, resource=API, scope="orders.read")
    async with serving(settings) as (client, _):
        assert (await client.get("/api/me", headers=bearer(foreign))).status_code == 401


async def test_a_token_lifetime_beyond_max_token_lifetime_is_refused(start_provider: Start) -> None:
    from datetime import timedelta

    provider = start_provider(CONFIG)
    settings = auth_settings(
        jwt_settings(provider.issuer, audience=[API], max_token_lifetime=timedelta(minutes=1))
    )
    token = _token(provider, resource=API, scope="orders.read")  # the provider issues 5-minute tokens
    async with serving(settings) as (client, _):
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401


async def test_an_opaque_provider_token_is_refused(start_provider: Start) -> None:
    config = {
        **CONFIG,
        "resources": {API: {"scope": "orders.read orders.write", "accessTokenFormat": "opaque"}},
    }
    provider = start_provider(config)
    settings = auth_settings(jwt_settings(provider.issuer, audience=[API]))
    token = _token(provider, resource=API, scope="orders.read")
    assert token.count(".") != 2  # really opaque
    async with serving(settings) as (client, _):
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401


async def test_an_id_token_of_the_same_provider_is_refused(
    start_provider: Start, caplog: pytest.LogCaptureFixture
) -> None:
    redirect = "http://127.0.0.1:9/callback"
    config = {
        **CONFIG,
        "clients": [
            *CONFIG["clients"],
            {
                "client_id": "web-app",
                "client_secret": "interop-secret-2",
                "application_type": "native",
                "grant_types": ["authorization_code"],
                "response_types": ["code"],
                "redirect_uris": [redirect],
            },
        ],
        "accounts": {"alice": {"email": "alice@example.com"}},
    }
    provider = start_provider(config)
    tokens = provider.authorization_code("web-app", "interop-secret-2", redirect, scope="openid email")
    assert tokens.status_code == 200, tokens.text
    id_token = tokens.json()["id_token"]
    # Same issuer, audience configured to the client the ID token was issued to, a real
    # signature: only the token type tells it apart from an access token.
    settings = auth_settings(jwt_settings(provider.issuer, audience=["web-app"]))
    with caplog.at_level(logging.DEBUG, logger="fw.auth.jwt"):
        async with serving(settings) as (client, _):
            assert (await client.get("/api/me", headers=bearer(id_token))).status_code == 401
    reasons = [r.getMessage() for r in caplog.records if "bearer rejected" in r.getMessage()]
    assert len(reasons) == 1
    assert "token type" in reasons[0]
