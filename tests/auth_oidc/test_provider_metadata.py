"""The relying party's provider metadata: refused when it names an endpoint fw must not use,
kept for a while, and fetched again on a schedule and after an endpoint it names failed.

The provider is a real server on loopback (:class:`naming_issuer.NamingIssuer`); the hosts that
are not loopback appear only as data in its documents and are never contacted.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator

import httpx2
import pytest
from joserfc import jwt
from naming_issuer import ELSEWHERE, ENDPOINT_MEMBERS, Clock, NamingIssuer

from fw.auth.oidc import OidcError, Provider, ProviderError, ProviderUnavailable
from fw.auth.oidc.device import DeviceClient, DeviceConfig

#: The members the relying party reads (every endpoint member but these three).
_UNREAD = {"registration_endpoint", "pushed_authorization_request_endpoint", "check_session_iframe"}
MEMBERS = [member for member in ENDPOINT_MEMBERS if member not in _UNREAD]


@pytest.fixture
def issuer() -> Iterator[NamingIssuer]:
    with NamingIssuer() as running:
        yield running


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def provider(issuer: NamingIssuer, clock: Clock) -> AsyncIterator[Provider]:
    provider = Provider(issuer.url, allow_loopback_http=True, metadata_max_age=600, clock=clock)
    yield provider
    await provider.aclose()


def discovered(issuer: NamingIssuer) -> int:
    return issuer.requests["/.well-known/openid-configuration"]


def id_token(issuer: NamingIssuer) -> str:
    now = int(time.time())
    claims = {"iss": issuer.url, "sub": "alice", "aud": "app", "iat": now, "exp": now + 300}
    return jwt.encode({"alg": "RS256", "kid": issuer.signing_key.kid}, claims, issuer.signing_key)


# Endpoints the provider may name.
@pytest.mark.parametrize("member", MEMBERS)
async def test_metadata_naming_a_plain_http_endpoint_elsewhere_is_unavailable_naming_it(
    issuer: NamingIssuer, provider: Provider, member: str
) -> None:
    issuer.names[member] = f"{ELSEWHERE}/{member}"
    with pytest.raises(ProviderUnavailable) as refused:
        await provider.metadata()
    assert refused.value.reason == "the discovery document names an endpoint fw must not use"
    assert f"{member} '{ELSEWHERE}/{member}'" in refused.value.detail


async def test_the_keys_are_not_fetched_from_an_untrusted_jwks_uri(
    issuer: NamingIssuer, provider: Provider
) -> None:
    issuer.names["jwks_uri"] = f"{ELSEWHERE}/jwks"
    with pytest.raises(ProviderUnavailable, match="jwks_uri"):
        await provider.key_for(issuer.signing_key.kid, "RS256")


async def test_the_device_flow_refuses_an_untrusted_device_endpoint(
    issuer: NamingIssuer, provider: Provider
) -> None:
    issuer.names["device_authorization_endpoint"] = f"{ELSEWHERE}/device"
    with pytest.raises(ProviderUnavailable, match="device_authorization_endpoint"):
        await DeviceClient(provider, DeviceConfig(client_id="tv")).begin()


async def test_https_endpoints_on_other_hosts_are_used_as_named(
    issuer: NamingIssuer, provider: Provider
) -> None:
    issuer.names["authorization_endpoint"] = "https://login.example.com/authorize"
    metadata = await provider.metadata()
    assert metadata.authorization_endpoint == "https://login.example.com/authorize"


# How long the document is kept.
async def test_the_document_is_kept_then_fetched_again_once_it_is_max_age_old(
    issuer: NamingIssuer, provider: Provider, clock: Clock
) -> None:
    first = await provider.metadata()
    issuer.names["authorization_endpoint"] = "https://login.example.com/authorize"
    clock.now += 599
    assert await provider.metadata() is first
    assert discovered(issuer) == 1
    clock.now += 1
    assert (await provider.metadata()).authorization_endpoint == "https://login.example.com/authorize"
    assert discovered(issuer) == 2


async def test_a_refused_answer_lasts_one_use_and_the_next_use_asks_again(
    issuer: NamingIssuer, provider: Provider
) -> None:
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    for _ in range(2):
        with pytest.raises(ProviderUnavailable):
            await provider.metadata()
    issuer.names.clear()
    assert (await provider.metadata()).token_endpoint == f"{issuer.url}/token"
    assert discovered(issuer) == 3


async def test_a_scheduled_fetch_that_is_refused_does_not_keep_the_old_endpoints(
    issuer: NamingIssuer, provider: Provider, clock: Clock
) -> None:
    await provider.metadata()
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    clock.now += 600
    with pytest.raises(ProviderUnavailable, match="token_endpoint"):
        await provider.metadata()


async def test_an_endpoint_that_cannot_be_reached_sends_the_next_use_back_to_discovery(
    issuer: NamingIssuer, provider: Provider, closed_loopback_url: str
) -> None:
    issuer.names["userinfo_endpoint"] = f"{closed_loopback_url}/userinfo"
    metadata = await provider.metadata()
    await provider.metadata()
    assert discovered(issuer) == 1
    with pytest.raises(ProviderUnavailable, match="could not be reached"):
        await provider.get_json(metadata.userinfo_endpoint)
    await provider.metadata()
    assert discovered(issuer) == 2


async def test_an_oauth_error_answer_is_no_failure_of_the_metadata(
    issuer: NamingIssuer, provider: Provider
) -> None:
    metadata = await provider.metadata()
    issuer.available = False  # every endpoint answers 503 {"error": "temporarily_unavailable"}
    with pytest.raises(ProviderError):
        await provider.get_json(issuer.jwks_uri)
    issuer.available = True
    assert await provider.metadata() is metadata
    assert discovered(issuer) == 1


async def test_the_last_good_keys_verify_while_a_refetched_document_is_refused(
    issuer: NamingIssuer, provider: Provider, clock: Clock
) -> None:
    kid = issuer.signing_key.kid
    key = await provider.key_for(kid, "RS256")
    assert key is not None
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    clock.now += 600
    with pytest.raises(OidcError):
        await provider.metadata()
    assert await provider.key_for(kid, "RS256") is key


async def test_a_failed_key_fetch_asks_discovery_where_the_keys_are_now(
    issuer: NamingIssuer, provider: Provider, closed_loopback_url: str
) -> None:
    issuer.names["jwks_uri"] = f"{closed_loopback_url}/jwks.json"
    with pytest.raises(ProviderUnavailable, match="could not be reached"):
        await provider.key_for(issuer.signing_key.kid, "RS256")
    issuer.names.clear()
    assert await provider.key_for(issuer.signing_key.kid, "RS256") is not None
    assert discovered(issuer) == 2


# The deployment check's fetch.
async def test_check_fetches_discovery_and_keys_and_counts_the_keys(
    issuer: NamingIssuer, provider: Provider
) -> None:
    assert await provider.check() == 1
    assert discovered(issuer) == 1 and issuer.requests["/jwks.json"] == 1


async def test_check_raises_what_a_sign_in_would_meet(issuer: NamingIssuer, provider: Provider) -> None:
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    with pytest.raises(ProviderUnavailable, match="token_endpoint"):
        await provider.check()


async def test_a_provider_given_its_client_still_checks_endpoints(issuer: NamingIssuer) -> None:
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    async with httpx2.AsyncClient() as http:
        provider = Provider(issuer.url, allow_loopback_http=True, http=http)
        with pytest.raises(ProviderUnavailable, match="token_endpoint"):
            await provider.metadata()
