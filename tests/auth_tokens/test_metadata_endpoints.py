"""The token core's issuer metadata: every endpoint it names passes the issuer's URL rule, a kept
document is fetched again on a schedule and after a failure, and a certificate nobody trusts is
named with the way to trust it (``SSL_CERT_FILE``).

The issuer is a real server on loopback (:class:`naming_issuer.NamingIssuer`); the hosts that
are not loopback appear only as data in its documents and are never contacted.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from functools import partial

import httpx2
import pytest
from naming_issuer import ELSEWHERE, ENDPOINT_MEMBERS, Clock, NamingIssuer, TlsFiles, self_signed

from fw.auth.tokens.discovery import IssuerDiscovery, endpoints
from fw.auth.tokens.errors import IncompleteMetadata, Unreachable, UntrustedEndpoint
from fw.auth.tokens.fetch import fetch_json
from fw.auth.tokens.jwks import JwksCache


@pytest.fixture
def issuer() -> Iterator[NamingIssuer]:
    with NamingIssuer() as running:
        yield running


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls_issuer(tls: TlsFiles) -> Iterator[NamingIssuer]:
    with NamingIssuer(tls=tls) as running:
        yield running


def trusting(tls: TlsFiles) -> httpx2.AsyncClient:
    """A client that trusts the test certificate (and nothing else)."""
    return httpx2.AsyncClient(verify=ssl.create_default_context(cafile=str(tls.certificate)))


def discovery(issuer: NamingIssuer, http: httpx2.AsyncClient, **options: object) -> IssuerDiscovery:
    options.setdefault("allow_loopback_http", issuer.url.startswith("http://"))
    return IssuerDiscovery(partial(fetch_json, http), issuer.url, **options)


# Which members name an endpoint.
def test_every_endpoint_member_is_named_and_documentation_pages_are_not() -> None:
    document = {
        "issuer": "https://id.example",
        **{member: f"https://id.example/{member}" for member in ENDPOINT_MEMBERS},
        "mtls_endpoint_aliases": {"token_endpoint": "https://mtls.id.example/token", "none": None},
        "future_thing_endpoint": "https://id.example/future",
        "service_documentation": "http://docs.example/",
        "op_policy_uri": "http://docs.example/policy",
        "userinfo_signing_alg_values_supported": ["RS256"],
    }
    named = dict(endpoints(document))
    assert set(named) == {
        *ENDPOINT_MEMBERS,
        "future_thing_endpoint",
        "mtls_endpoint_aliases.token_endpoint",
    }


def test_an_absent_null_or_empty_member_names_no_endpoint() -> None:
    assert list(endpoints({"userinfo_endpoint": None, "end_session_endpoint": "", "issuer": "x"})) == []


# The issuer's URL rule, applied to every endpoint.
@pytest.mark.parametrize("member", ENDPOINT_MEMBERS)
async def test_a_plain_http_endpoint_elsewhere_is_refused_naming_the_member_and_the_url(
    issuer: NamingIssuer, member: str
) -> None:
    url = f"{ELSEWHERE}/{member}"
    issuer.names[member] = url
    async with httpx2.AsyncClient() as http:
        with pytest.raises(UntrustedEndpoint) as refused:
            await discovery(issuer, http).metadata()
    assert (refused.value.member, refused.value.url) == (member, url)
    assert f"names {member} '{url}', which must be https" in str(refused.value)
    assert issuer.url in str(refused.value)  # where the document came from


async def test_every_refused_member_is_named_at_once(issuer: NamingIssuer) -> None:
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    issuer.names["authorization_endpoint"] = f"{ELSEWHERE}/auth"
    async with httpx2.AsyncClient() as http:
        with pytest.raises(UntrustedEndpoint) as refused:
            await discovery(issuer, http).metadata()
    assert {member for member, _, _ in refused.value.refused} == {"token_endpoint", "authorization_endpoint"}
    assert f"'{ELSEWHERE}/token'" in str(refused.value) and f"'{ELSEWHERE}/auth'" in str(refused.value)


async def test_an_mtls_alias_is_an_endpoint_too(issuer: NamingIssuer) -> None:
    issuer.names["mtls_endpoint_aliases"] = {"token_endpoint": f"{ELSEWHERE}/token"}
    async with httpx2.AsyncClient() as http:
        with pytest.raises(UntrustedEndpoint) as refused:
            await discovery(issuer, http).metadata()
    assert refused.value.member == "mtls_endpoint_aliases.token_endpoint"


@pytest.mark.parametrize("value", [42, ["https://id.example/token"], "https://user:pw@id.example/token"])
async def test_an_endpoint_that_is_no_usable_url_is_refused(issuer: NamingIssuer, value: object) -> None:
    issuer.names["token_endpoint"] = value
    async with httpx2.AsyncClient() as http:
        with pytest.raises(UntrustedEndpoint, match="token_endpoint"):
            await discovery(issuer, http).metadata()


async def test_https_endpoints_on_other_hosts_are_accepted(issuer: NamingIssuer) -> None:
    issuer.names["authorization_endpoint"] = "https://login.example.com/authorize"
    issuer.names["token_endpoint"] = "https://api.example.com/token"
    async with httpx2.AsyncClient() as http:
        document = await discovery(issuer, http).metadata()
    assert document["token_endpoint"] == "https://api.example.com/token"


async def test_a_plain_http_loopback_endpoint_of_an_https_issuer_needs_allow_loopback_http(
    tls: TlsFiles, tls_issuer: NamingIssuer
) -> None:
    plain = f"http://127.0.0.1:{tls_issuer.port}/token"
    tls_issuer.names["token_endpoint"] = plain
    async with trusting(tls) as http:
        with pytest.raises(UntrustedEndpoint, match="set allow_loopback_http = true"):
            await discovery(tls_issuer, http).metadata()
        allowed = await discovery(tls_issuer, http, allow_loopback_http=True).metadata()
    assert allowed["token_endpoint"] == plain


async def test_a_missing_required_member_is_named(issuer: NamingIssuer) -> None:
    issuer.names["token_endpoint"] = None
    async with httpx2.AsyncClient() as http:
        with pytest.raises(IncompleteMetadata, match="has no token_endpoint"):
            await discovery(issuer, http, required=("token_endpoint", "jwks_uri")).metadata()


# How long a document is kept.
async def test_a_refused_document_is_not_kept_so_the_next_use_fetches_again(issuer: NamingIssuer) -> None:
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    async with httpx2.AsyncClient() as http:
        found = discovery(issuer, http)
        with pytest.raises(UntrustedEndpoint):
            await found.metadata()
        issuer.names.clear()
        assert (await found.metadata())["token_endpoint"] == f"{issuer.url}/token"
    assert found.fetches == 2


async def test_a_kept_document_is_fetched_again_once_it_is_max_age_old(issuer: NamingIssuer) -> None:
    clock = Clock()
    async with httpx2.AsyncClient() as http:
        found = discovery(issuer, http, max_age=600, clock=clock)
        await found.metadata()
        issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
        clock.now += 599.9
        assert (await found.metadata())["token_endpoint"] == f"{issuer.url}/token"  # still the kept one
        assert found.fetches == 1
        clock.now += 0.1
        with pytest.raises(UntrustedEndpoint):
            await found.metadata()
    assert found.fetches == 2


async def test_callers_waiting_for_a_fetch_share_its_failure_instead_of_asking_again(
    issuer: NamingIssuer,
) -> None:
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    async with httpx2.AsyncClient() as http:
        found = discovery(issuer, http)
        outcomes = await asyncio.gather(*(found.metadata() for _ in range(5)), return_exceptions=True)
        assert all(isinstance(outcome, UntrustedEndpoint) for outcome in outcomes)
        assert found.fetches == 1
        issuer.names.clear()
        await found.metadata()  # a later use asks again
    assert found.fetches == 2


async def test_expire_sends_the_next_use_back_to_the_issuer(issuer: NamingIssuer) -> None:
    async with httpx2.AsyncClient() as http:
        found = discovery(issuer, http)
        await found.metadata()
        await found.metadata()
        found.expire()
        await found.metadata()
    assert found.fetches == 2
    assert issuer.requests["/.well-known/openid-configuration"] == 2


async def test_a_failed_key_fetch_asks_discovery_again_and_follows_the_moved_jwks_uri(
    issuer: NamingIssuer, closed_loopback_url: str
) -> None:
    issuer.names["jwks_uri"] = f"{closed_loopback_url}/jwks.json"
    async with httpx2.AsyncClient() as http:
        found = discovery(issuer, http)
        keys = JwksCache(found.jwks_uri, http, on_failure=found.expire)
        with pytest.raises(Unreachable):
            await keys.refresh()
        issuer.names.clear()  # the issuer now names where its keys really are
        await keys.refresh()
    assert keys.jwks_uri == issuer.jwks_uri
    assert len(keys.keys) == 1
    assert found.fetches == 2


# Certificates.
async def test_a_certificate_nobody_trusts_is_named_with_ssl_cert_file(
    tls_issuer: NamingIssuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    async with httpx2.AsyncClient() as http:
        with pytest.raises(Unreachable) as failed:
            await fetch_json(http, tls_issuer.jwks_uri)
    assert failed.value.untrusted_certificate
    message = str(failed.value)
    assert tls_issuer.jwks_uri in message and "CERTIFICATE_VERIFY_FAILED" in message
    assert "SSL_CERT_FILE" in message and "REQUESTS_CA_BUNDLE is not read" in message


async def test_ssl_cert_file_naming_the_certificate_is_how_it_becomes_trusted(
    tls: TlsFiles, tls_issuer: NamingIssuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls.certificate))
    async with httpx2.AsyncClient() as http:
        assert "keys" in await fetch_json(http, tls_issuer.jwks_uri)


async def test_a_refused_connection_is_not_called_a_certificate_problem(closed_loopback_url: str) -> None:
    async with httpx2.AsyncClient() as http:
        with pytest.raises(Unreachable) as failed:
            await fetch_json(http, closed_loopback_url)
    assert not failed.value.untrusted_certificate
    assert "SSL_CERT_FILE" not in str(failed.value)


def test_the_certificate_hint_is_given_for_a_wrapped_verification_error() -> None:
    try:
        try:
            raise ssl.SSLCertVerificationError(1, "certificate verify failed: unable to get local issuer")
        except ssl.SSLError as low:
            raise httpx2.ConnectError("handshake failed") from low
    except httpx2.ConnectError as error:
        failed = Unreachable("https://id.example/jwks", error)
    assert failed.untrusted_certificate and "SSL_CERT_FILE" in str(failed)
