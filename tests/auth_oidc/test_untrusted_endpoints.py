"""Sign-in against a provider whose discovery document names endpoints fw must not use.

The issue's reproduction: an issuer on loopback with ``allow_loopback_http = true`` whose
discovery names ``http://idp.example.com/auth`` and ``/token``. The browser is never sent there
and no secret goes there: the login answers 503 and the log names the endpoint. The document is
not kept, so the next login after the provider is fixed works without a restart.

The provider is a real server on loopback (:class:`naming_issuer.NamingIssuer`);
``idp.example.com`` is only data in its document and nothing connects to it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from auth_passkey_modes.support import oidc_passkey_toml, user_app
from naming_issuer import NamingIssuer

from auth_oidc.support import open_browser
from fw.testing import BrowserClient, configured

ELSEWHERE = "http://idp.example.com"


@pytest.fixture
def issuer() -> Iterator[NamingIssuer]:
    with NamingIssuer() as running:
        yield running


def names_plain_http_elsewhere(issuer: NamingIssuer) -> None:
    issuer.names["authorization_endpoint"] = f"{ELSEWHERE}/auth"
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"


def test_a_login_never_sends_the_browser_to_a_plain_http_endpoint_the_discovery_names(
    issuer: NamingIssuer, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    names_plain_http_elsewhere(issuer)
    with open_browser(issuer.url, sqlite_dsn) as (client, _), caplog.at_level(logging.ERROR, "fw.auth"):
        response = client.get("/auth/login", follow_redirects=False)
    assert response.status_code == 503
    assert response.json()["code"] == "provider_unavailable"
    assert "location" not in response.headers
    assert f"authorization_endpoint '{ELSEWHERE}/auth', which must be https" in caplog.text
    assert f"token_endpoint '{ELSEWHERE}/token', which must be https" in caplog.text
    assert issuer.requests["/.well-known/openid-configuration"] == 1


def test_the_next_login_after_the_provider_is_fixed_redirects_without_a_restart(
    issuer: NamingIssuer, sqlite_dsn: str
) -> None:
    names_plain_http_elsewhere(issuer)
    with open_browser(issuer.url, sqlite_dsn) as (client, _):
        assert client.get("/auth/login", follow_redirects=False).status_code == 503
        issuer.names.clear()
        response = client.get("/auth/login", follow_redirects=False)
    assert response.status_code in (302, 303)
    assert response.headers["location"].startswith(f"{issuer.url}/auth?")
    assert issuer.requests["/.well-known/openid-configuration"] == 2


def test_an_untrusted_endpoint_fw_itself_would_call_refuses_the_login_too(
    issuer: NamingIssuer, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    issuer.names["userinfo_endpoint"] = f"{ELSEWHERE}/userinfo"
    with open_browser(issuer.url, sqlite_dsn) as (client, _), caplog.at_level(logging.ERROR, "fw.auth"):
        response = client.get("/auth/login", follow_redirects=False)
    assert response.status_code == 503
    assert f"userinfo_endpoint '{ELSEWHERE}/userinfo'" in caplog.text


def test_an_https_authorization_endpoint_on_another_host_is_where_the_browser_goes(
    issuer: NamingIssuer, sqlite_dsn: str
) -> None:
    issuer.names["authorization_endpoint"] = "https://idp.example.com/auth"
    with open_browser(issuer.url, sqlite_dsn) as (client, _):
        response = client.get("/auth/login", follow_redirects=False)
    assert response.headers["location"].startswith("https://idp.example.com/auth?")


def test_oidc_passkey_refuses_the_provider_login_the_same_way(issuer: NamingIssuer, sqlite_dsn: str) -> None:
    names_plain_http_elsewhere(issuer)
    toml = oidc_passkey_toml(issuer.url, "app", sqlite_dsn)
    with (
        configured(toml=toml, env={"AUTH_OIDC_CLIENT_SECRET": "s3cret"}),
        BrowserClient(user_app(), issuer.url, base_url="http://localhost") as client,
    ):
        response = client.get("/auth/login", follow_redirects=False)
    assert response.status_code == 503
    assert "location" not in response.headers
