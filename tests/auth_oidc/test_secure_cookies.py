"""An App whose public address is https names its session cookie ``__Host-fw_session`` and makes
every cookie ``Secure``, through the whole OpenID Connect round trip: sign-in, the session read
on later requests, sign-out. (A production App behind a plain-http proxy, as real processes:
``tests/e2e/test_cookies_behind_a_proxy.py``.)"""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from auth_oidc.support import open_browser
from fw.testing import TestIdentityProvider, identity_provider

PUBLIC = "https://app.example.test"


@pytest.fixture
def public_idp() -> Iterator[TestIdentityProvider]:
    with identity_provider(redirect_uris=[f"{PUBLIC}/auth/callback"]) as idp:
        yield idp


def cookie_headers(response: httpx2.Response) -> list[str]:
    """Every ``Set-Cookie`` the App answered on the way to ``response`` (redirects followed)."""
    answers = [answer for answer in [*response.history, response] if answer.url.host == "app.example.test"]
    return [header for answer in answers for header in answer.headers.get_list("set-cookie")]


def test_the_session_cookie_of_an_app_with_an_https_redirect_url_is_host_prefixed_secure_and_read(
    public_idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    configured = {"redirect_url": f"{PUBLIC}/auth/callback"}
    with open_browser(public_idp, sqlite_dsn, base_url=PUBLIC, oidc=configured) as (client, _):
        landed = client.login("alice")
        assert landed.status_code == 200
        [session] = [h for h in cookie_headers(landed) if h.startswith("__Host-fw_session=")]
        assert "; Path=/;" in session and "; Secure" in session and "Domain" not in session
        assert all("; Secure" in header for header in cookie_headers(landed))
        assert {c.name for c in client.cookies.jar} == {"__Host-fw_session"}
        assert client.get("/me").json()["signed_in"]

        out = client.logout()
        assert out.status_code == 303
        ended = cookie_headers(out)
        assert any(h.startswith("__Host-fw_session=;") and "Max-Age=0" in h for h in ended)
        assert all("; Secure" in header for header in ended)
        assert not client.get("/me").json()["signed_in"]
