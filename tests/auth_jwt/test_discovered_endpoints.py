"""``jwt_only`` discovery: every endpoint the issuer's metadata names passes the issuer's URL rule,
at startup and whenever the metadata is fetched again (after a failed key fetch).

The issuer is a real server on loopback (:class:`naming_issuer.NamingIssuer`);
``idp.example.com`` is only data in its documents and nothing connects to it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from naming_issuer import NamingIssuer

from fw.errors import StartupError

from .conftest import bearer, serving
from .settings import auth_settings, jwt_settings

ELSEWHERE = "http://idp.example.com"
OIDC_METADATA = "/.well-known/openid-configuration"


@pytest.fixture
def issuer() -> Iterator[NamingIssuer]:
    with NamingIssuer() as running:
        yield running


@pytest.mark.parametrize("discovery", ["oidc", "oauth"])
@pytest.mark.parametrize("member", ["token_endpoint", "jwks_uri", "revocation_endpoint"])
async def test_startup_refuses_metadata_naming_a_plain_http_endpoint_elsewhere_naming_it(
    issuer: NamingIssuer, discovery: str, member: str
) -> None:
    issuer.names[member] = f"{ELSEWHERE}/{member}"
    with pytest.raises(StartupError) as refused:
        async with serving(auth_settings(jwt_settings(issuer.url, discovery=discovery))):
            pass
    assert (refused.value.key, refused.value.value) == ("auth.jwt.issuer", issuer.url)
    assert f"names {member} '{ELSEWHERE}/{member}', which must be https" in str(refused.value)
    assert issuer.requests["/jwks.json"] == 0  # no key was fetched from a document refused


async def test_https_endpoints_on_other_hosts_do_not_stop_the_start(issuer: NamingIssuer) -> None:
    issuer.names["token_endpoint"] = "https://idp.example.com/token"
    async with serving(auth_settings(jwt_settings(issuer.url))) as (client, _):
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200


async def test_after_a_failed_key_fetch_the_metadata_is_fetched_again_and_checked_again(
    issuer: NamingIssuer,
) -> None:
    async with serving(auth_settings(jwt_settings(issuer.url)), cooldown=0.0) as (client, _):
        known = issuer.mint()
        assert issuer.requests[OIDC_METADATA] == 1
        issuer.rotate()
        issuer.available = False  # the key fetch for the new kid fails
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 401
        issuer.available = True
        issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"  # the next document is refused
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 401
        refetched = issuer.requests[OIDC_METADATA]
        assert refetched > 1  # asked again after the failed key fetch, and refused this time
        assert (await client.get("/api/me", headers=bearer(known))).status_code == 200  # last good keys
        issuer.names.clear()
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200
        assert issuer.requests[OIDC_METADATA] > refetched  # a refused document was not kept
