"""The relying party's provider through the token core: its keys, and answers it refuses to trust.

The provider is scripted with ``httpx2.MockTransport``; nothing leaves the process.
"""

from __future__ import annotations

import time
from typing import Any

import httpx2
import pytest
from joserfc import jwt

from fw.auth.oidc import OidcError, Provider, ProviderUnavailable, TokenRejected, verify_id_token
from fw.testing.issuer import generate_key

ISSUER = "http://127.0.0.1:8999"
CLIENT = "fw-client"
KEY = generate_key("RS256", "k1")
ROTATED = generate_key("RS256", "k2")


class ScriptedProvider:
    """Discovery, a JWKS and a userinfo endpoint; ``down`` makes the JWKS unreachable."""

    def __init__(self) -> None:
        self.keys: list[Any] = [KEY.as_dict(private=False)]
        self.down = False
        self.jwks_calls = 0
        self.userinfo = httpx2.Response(200, json={"sub": "alice"})

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/.well-known/openid-configuration":
            return httpx2.Response(
                200,
                json={
                    "issuer": ISSUER,
                    "authorization_endpoint": f"{ISSUER}/authorize",
                    "token_endpoint": f"{ISSUER}/token",
                    "jwks_uri": f"{ISSUER}/jwks",
                    "userinfo_endpoint": f"{ISSUER}/userinfo",
                },
            )
        if request.url.path == "/jwks":
            self.jwks_calls += 1
            if self.down:
                raise httpx2.ConnectError("connection refused", request=request)
            return httpx2.Response(200, json={"keys": self.keys})
        return self.userinfo


def id_token(key: Any = KEY, **claims: Any) -> str:
    now = int(time.time())
    payload = {"iss": ISSUER, "sub": "alice", "aud": CLIENT, "iat": now, "exp": now + 300, **claims}
    return jwt.encode({"alg": "RS256", "kid": key.kid}, payload, key)


async def verify(provider: Provider, token: str) -> str:
    identity = await verify_id_token(provider, token, client_id=CLIENT, nonce=None)
    return identity.subject


@pytest.fixture
def scripted() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
async def provider(scripted: ScriptedProvider) -> Any:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(scripted.handler))
    provider = Provider(ISSUER, allow_loopback_http=True, http=http)
    yield provider
    await provider.aclose()
    await http.aclose()


async def test_a_rotated_provider_key_is_found_without_a_restart(
    scripted: ScriptedProvider, provider: Provider
) -> None:
    assert await verify(provider, id_token()) == "alice"
    scripted.keys = [ROTATED.as_dict(private=False)]
    assert await verify(provider, id_token(ROTATED)) == "alice"
    assert scripted.jwks_calls == 2


async def test_the_last_good_keys_stay_in_use_while_the_provider_is_down(
    scripted: ScriptedProvider, provider: Provider
) -> None:
    assert await verify(provider, id_token()) == "alice"
    scripted.down = True
    with pytest.raises(TokenRejected, match="signature does not verify"):
        await verify(provider, id_token(ROTATED))  # unknown kid: a refetch that fails quietly
    assert scripted.jwks_calls == 2
    assert await verify(provider, id_token()) == "alice"


async def test_a_flood_of_unknown_kids_refetches_the_keys_once_per_cooldown(
    scripted: ScriptedProvider, provider: Provider
) -> None:
    strangers = [generate_key("RS256", f"made-up-{n}") for n in range(5)]
    assert await verify(provider, id_token()) == "alice"
    for stranger in strangers:
        with pytest.raises(TokenRejected):
            await verify(provider, id_token(stranger))
    assert scripted.jwks_calls == 2


async def test_an_unreachable_provider_on_the_first_key_load_is_provider_unavailable(
    scripted: ScriptedProvider, provider: Provider
) -> None:
    scripted.down = True
    with pytest.raises(ProviderUnavailable, match="could not be reached"):
        await verify(provider, id_token())
    scripted.down = False
    assert await verify(provider, id_token()) == "alice"  # the next sign-in loads them


async def test_one_unusable_key_spoils_the_provider_key_set(
    scripted: ScriptedProvider, provider: Provider
) -> None:
    scripted.keys = [{"kty": "RSA", "kid": "broken", "n": "x"}, KEY.as_dict(private=False)]
    with pytest.raises(OidcError, match="key set is malformed"):
        await verify(provider, id_token())


@pytest.mark.parametrize(
    ("exp", "reason"),
    [(10**400, "no numeric exp"), (float("inf"), "signature does not verify")],
    ids=["huge-integer", "infinity-is-not-json"],
)
async def test_an_id_token_whose_expiry_is_out_of_range_is_rejected_not_a_crash(
    provider: Provider, exp: float, reason: str
) -> None:
    with pytest.raises(TokenRejected, match=reason):
        await verify(provider, id_token(exp=exp))


async def test_an_oversized_provider_answer_is_refused_unread(
    scripted: ScriptedProvider, provider: Provider
) -> None:
    scripted.userinfo = httpx2.Response(200, content=b"{}", headers={"Content-Length": str(10**9)})
    with pytest.raises(ProviderUnavailable, match="unexpected"):
        await provider.get_json(f"{ISSUER}/userinfo")


async def test_a_provider_endpoint_answering_a_redirect_is_not_followed(
    scripted: ScriptedProvider, provider: Provider
) -> None:
    scripted.userinfo = httpx2.Response(302, headers={"Location": "http://127.0.0.2/elsewhere"}, json={})
    with pytest.raises(ProviderUnavailable, match="HTTP 302"):
        await provider.get_json(f"{ISSUER}/userinfo")
