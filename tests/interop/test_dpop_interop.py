"""DPoP-bound access tokens issued by a certified provider (oidc-provider) and verified by fw.

The client asks the provider's token endpoint for a token with a DPoP proof; the provider
binds the token to the proof's key (``cnf.jkt``, ``token_type`` ``DPoP``). fw accepts it only
with a fresh proof of that same key (its replay record in a migrated SQLite store).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
from auth_dpop.support import DpopClient
from auth_jwt.conftest import bearer, serving
from auth_jwt.settings import auth_settings, jwt_settings

from .conftest import RunningProvider, worker

API = "urn:fw:orders-api"
ME = "http://testserver/api/me"
CONFIG = {
    "clients": [
        worker("orders.read"),
    ],
    "resources": {API: {"scope": "orders.read"}},
    "features": {"dPoP": {"enabled": True}},
}

Start = Callable[[dict[str, Any]], RunningProvider]


def dpop_token(provider: RunningProvider, client: DpopClient) -> dict[str, Any]:
    token_endpoint = f"{provider.issuer}/token"
    answer = httpx2.post(
        token_endpoint,
        data={"grant_type": "client_credentials", "resource": API, "scope": "orders.read"},
        auth=("orders-worker", "interop-secret-1"),
        headers={"DPoP": client.proof("POST", token_endpoint)},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def test_a_dpop_bound_token_from_a_certified_provider_is_accepted_with_a_proof_of_its_key(
    start_provider: Start, sqlite_dsn: str
) -> None:
    provider = start_provider(CONFIG)
    client = DpopClient()
    issued = dpop_token(provider, client)
    assert issued["token_type"] == "DPoP"
    token = issued["access_token"]
    settings = auth_settings(jwt_settings(provider.issuer, audience=[API], dpop="required"))
    async with serving(settings, sqlite_dsn) as (http, _):
        proof = client.proof("GET", ME, token)
        accepted = await http.get("/api/me", headers={"Authorization": f"DPoP {token}", "DPoP": proof})
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["claims"]["cnf"] == {"jkt": client.jkt}

        thief = DpopClient()
        stolen = await http.get(
            "/api/me", headers={"Authorization": f"DPoP {token}", "DPoP": thief.proof("GET", ME, token)}
        )
        assert stolen.status_code == 401
        assert stolen.headers["www-authenticate"].startswith('DPoP error="invalid_dpop_proof"')


async def test_a_provider_dpop_token_presented_as_bearer_is_refused_when_dpop_is_allowed(
    start_provider: Start, sqlite_dsn: str
) -> None:
    provider = start_provider(CONFIG)
    token = dpop_token(provider, DpopClient())["access_token"]
    settings = auth_settings(jwt_settings(provider.issuer, audience=[API], dpop="allowed"))
    async with serving(settings, sqlite_dsn) as (http, _):
        response = await http.get("/api/me", headers=bearer(token))
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
