"""A name that merely ends in ``localhost`` (``evillocalhost``) is an ordinary internet name that
anyone can register and point anywhere: only ``localhost``, ``*.localhost`` and loopback addresses
are loopback. Checked at every decision that trusts loopback: the host check itself, issuer and
key URLs, ``allow_loopback_http``, redirect URLs, cookies without ``Secure``, a request-derived
callback URL, the development provider's unregistered redirect URIs and its Host check, and the
passkey origins that may use http."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from fw.auth.browser.cookies import cookie_secure
from fw.auth.browser.origins import Origins
from fw.auth.browser.redirects import loopback_host_header
from fw.auth.browser.rules import check_redirect_url
from fw.auth.modes.rules import check_issuer
from fw.auth.tokens.urls import is_loopback_host, transport_problem
from fw.auth.webauthn import RelyingParty, relying_party_problems
from fw.devidp.loopback import LoopbackOnly, redirect_allowed
from fw.errors import StartupError
from fw.problems import Problem

#: Names that end in "localhost" without being it or under it.
LOOKALIKES = ["evillocalhost", "EvilLocalhost", "evillocalhost.", "xn--localhost", "a.evillocalhost"]
#: Loopback names, so every check below is also seen to accept what it should.
LOOPBACK = ["localhost", "app.localhost", "LOCALHOST.", "127.0.0.1"]


@pytest.mark.parametrize("host", LOOKALIKES)
def test_a_name_ending_in_localhost_is_not_loopback(host: str) -> None:
    assert is_loopback_host(host) is False
    assert is_loopback_host(f"[{host}]") is False


@pytest.mark.parametrize("host", LOOPBACK)
def test_localhost_its_subdomains_and_loopback_addresses_are_loopback(host: str) -> None:
    assert is_loopback_host(host) is True


@pytest.mark.parametrize("host", LOOKALIKES)
def test_an_issuer_on_a_lookalike_name_needs_https_even_with_allow_loopback_http(host: str) -> None:
    assert transport_problem(f"http://{host}:9000", allow_loopback_http=True) == (
        "must be https (plain http is only allowed for a loopback development issuer)"
    )
    assert transport_problem("http://app.localhost:9000", allow_loopback_http=True) is None


@pytest.mark.parametrize("host", LOOKALIKES)
def test_allow_loopback_http_is_refused_for_an_issuer_on_a_lookalike_name(host: str) -> None:
    with pytest.raises(StartupError) as refused:
        check_issuer("auth.oidc", f"https://{host}", allow_loopback_http=True)
    assert refused.value.key == "auth.oidc.allow_loopback_http"
    check_issuer("auth.oidc", "https://app.localhost", allow_loopback_http=True)


@pytest.mark.parametrize("host", LOOKALIKES)
def test_a_lookalike_host_header_is_not_loopback(host: str) -> None:
    assert loopback_host_header(f"{host}:8000") is False
    assert loopback_host_header("app.localhost:8000") is True


@pytest.mark.parametrize("host", LOOKALIKES)
def test_a_plain_http_redirect_url_on_a_lookalike_name_is_refused_in_loopback_development(host: str) -> None:
    with pytest.raises(StartupError) as refused:
        check_redirect_url("auth.oidc.redirect_url", f"http://{host}:8000/auth/callback", True)
    assert refused.value.key == "auth.oidc.redirect_url" and "https" in refused.value.fix
    check_redirect_url("auth.oidc.redirect_url", "http://app.localhost:8000/auth/callback", True)


def _request(host: str) -> Request:
    headers = [(b"host", host.encode())]
    scope = {"type": "http", "scheme": "http", "method": "GET", "path": "/", "headers": headers}
    return Request({**scope, "query_string": b"", "server": ("127.0.0.1", 8000), "root_path": ""})


@pytest.mark.parametrize("host", LOOKALIKES)
def test_cookies_answered_to_a_lookalike_host_over_http_stay_secure(host: str) -> None:
    assert cookie_secure(_request(f"{host}:8000")) is True
    assert cookie_secure(_request("app.localhost:8000")) is False


@pytest.mark.parametrize("host", LOOKALIKES)
def test_no_callback_url_is_derived_from_a_lookalike_host(host: str) -> None:
    origins = Origins("auth.oidc.redirect_url", "", "/auth/callback", allow_loopback_http=True)
    with pytest.raises(Problem) as refused:
        origins.redirect_uri_for(_request(f"{host}:8000"))
    assert refused.value.status == 400
    derived = origins.redirect_uri_for(_request("app.localhost:8000"))
    assert derived == "http://app.localhost:8000/auth/callback"


@pytest.mark.parametrize("host", LOOKALIKES)
def test_the_development_provider_takes_no_unregistered_redirect_uri_on_a_lookalike_name(host: str) -> None:
    assert redirect_allowed(f"http://{host}:8000/auth/callback", ()) is False
    assert redirect_allowed("http://app.localhost:8000/auth/callback", ()) is True


@pytest.mark.parametrize("host", LOOKALIKES)
def test_the_development_provider_refuses_requests_addressed_to_a_lookalike_name(host: str) -> None:
    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse("hello")

    guarded = LoopbackOnly(Starlette(routes=[Route("/", hello)]), footer="")
    with TestClient(guarded, base_url=f"http://{host}:9000") as client:
        assert client.get("/").status_code == 421
    with TestClient(guarded, base_url="http://app.localhost:9000") as client:
        assert client.get("/").text == "hello"


@pytest.mark.parametrize("host", ["evillocalhost", "a.evillocalhost"])
def test_a_passkey_origin_on_a_lookalike_name_must_use_https(host: str) -> None:
    plain = RelyingParty(host, "Example", (f"http://{host}:8000",), "required")
    assert [(p.field, "only localhost" in p.message) for p in relying_party_problems(plain)] == [
        ("origins", True)
    ]
    assert relying_party_problems(RelyingParty(host, "Example", (f"https://{host}",), "required")) == []
