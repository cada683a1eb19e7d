"""Return-path safety, loopback origin rules and issuer URL rules, as pure functions."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from fw.auth.browser.redirects import loopback_host_header, safe_return_path
from fw.auth.oidc import check_issuer_url
from fw.auth.oidc.authorization import PendingLogin, authorization_url, scope_string
from fw.auth.oidc.provider import ProviderMetadata


@pytest.mark.parametrize("path", ["/", "/a", "/a/b?c=d&e=%2F", "/files/a%2Fb", "/caf%C3%A9", "/a#frag"])
def test_same_site_root_relative_paths_are_kept(path: str) -> None:
    assert safe_return_path(path) == path


# Overlaps HOSTILE_NEXT (security/test_callback_attacks.py) on purpose: this is the unit's list, that one
# the end-to-end corpus; each keeps cases the other has no use for.
@pytest.mark.parametrize(
    "path",
    [
        None,
        "",
        "a/b",
        "//evil.example",
        "///evil.example",
        "/\\evil.example",
        "\\\\evil.example",
        "https://evil.example",
        "HTTPS://evil.example/",
        "javascript:alert(1)",
        "/%2F%2Fevil.example",
        "/%2f/evil.example",
        "/%5Cevil.example",
        "/%5cevil.example",
        "/%252F%252Fevil.example",
        "/%25252F%25252Fevil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        "/%09/evil.example",
        "/%0D%0ALocation:%20https://evil.example",
        "/a\x00b",
        "/" + "a" * 3000,
    ],
)
def test_anything_a_browser_could_read_as_another_origin_is_refused(path: str | None) -> None:
    assert safe_return_path(path) is None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("localhost:8000", True),
        ("LOCALHOST:8000", True),
        ("app.localhost:3000", True),
        ("127.0.0.1:8000", True),
        ("[::1]:8000", True),
        ("[::1]", True),
        ("", False),
        ("example.com", False),
        ("localhost.example.com", False),
        ("127.0.0.1.nip.io", False),
        ("10.0.0.1:8000", False),
        ("[::2]:80", False),
        ("[::1", False),
    ],
)
def test_only_loopback_hosts_may_derive_the_redirect_url(host: str, loopback: bool) -> None:
    assert loopback_host_header(host) is loopback


@pytest.mark.parametrize(
    ("issuer", "allow", "ok"),
    [
        ("https://id.example.com", False, True),
        ("http://id.example.com", False, False),
        ("http://id.example.com", True, False),
        ("http://127.0.0.1:9000", False, False),
        ("http://127.0.0.1:9000", True, True),
        ("http://localhost:9000", True, True),
        ("ftp://id.example.com", True, False),
        ("id.example.com", False, False),
    ],
)
def test_issuers_are_https_except_a_loopback_development_provider(issuer: str, allow: bool, ok: bool) -> None:
    assert (check_issuer_url(issuer, allow_loopback_http=allow) is None) is ok


def test_scopes_are_added_to_openid_once_in_order() -> None:
    assert scope_string(["email", "openid", "profile", "email"]) == "openid email profile"


def test_the_authorization_url_keeps_an_endpoint_query() -> None:
    metadata = ProviderMetadata(
        "https://id", "https://id/authorize?tenant=a", "https://id/token", "https://id/jwks"
    )
    url = authorization_url(
        metadata, client_id="c", pending=PendingLogin.new("https://app/cb"), prompt="login"
    )
    assert url.startswith("https://id/authorize?tenant=a&response_type=code&")
    assert "&prompt=login" in url


def test_every_authorization_request_asks_for_auth_time_as_an_essential_id_token_claim() -> None:
    metadata = ProviderMetadata("https://id", "https://id/authorize", "https://id/token", "https://id/jwks")
    for max_age in (None, 300):
        url = authorization_url(
            metadata, client_id="c", pending=PendingLogin.new("https://app/cb"), max_age=max_age
        )
        [claims] = parse_qs(urlsplit(url).query)["claims"]
        assert json.loads(claims) == {"id_token": {"auth_time": {"essential": True}}}


def test_each_login_attempt_gets_fresh_secrets() -> None:
    first, second = PendingLogin.new("https://app/cb"), PendingLogin.new("https://app/cb")
    assert len({first.state, second.state, first.nonce, second.nonce, first.code_verifier}) == 5
    assert 43 <= len(first.code_verifier) <= 128
