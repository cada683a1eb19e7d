"""The relying party against an independent, certified provider (npm ``oidc-provider``, loopback).

The provider's development interactions ask for a login name and a consent click; the test
fills both forms like a browser would, then checks fw's session.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from interop.conftest import RunningProvider, relying_party, start_provider

from auth_oidc.support import open_browser
from fw.auth.modes.oidc_only import OidcOnly
from fw.testing import BrowserClient

__all__ = ["start_provider"]  # the harness fixture, used below

ORIGIN = "http://localhost:8000"


def fw_rp_browser(
    issuer: str, dsn: str, secret: str, **changes: Any
) -> AbstractContextManager[tuple[BrowserClient, OidcOnly]]:
    """A browser on an App of this origin signing in at ``issuer`` as the registered ``fw-rp``."""
    return open_browser(issuer, dsn, base_url=ORIGIN, client_id="fw-rp", client_secret=secret, **changes)


def configure(start: Callable[[dict[str, Any]], RunningProvider], secret: str) -> RunningProvider:
    return start(
        {
            "clients": [
                relying_party(secret, ORIGIN, post_logout_redirect_uris=[f"{ORIGIN}/"]),
            ],
            "accounts": {"alice": {"email": "alice@interop.test", "name": "Alice Interop"}},
        }
    )


def submit_form(client: BrowserClient, page: httpx2.Response, **fields: str) -> httpx2.Response:
    """Submit the page's first form as a browser would: its hidden inputs plus ``fields``."""
    form = re.search(r"<form[^>]*action=\"([^\"]+)\"[^>]*>(.*?)</form>", page.text, re.S)
    assert form, page.text
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(2)))
    target = httpx2.URL(str(page.url)).join(form.group(1))
    return client.post(str(target), data={**hidden, **fields}, follow_redirects=True)


@pytest.fixture
def rp(start_provider: Callable[[dict[str, Any]], RunningProvider], sqlite_dsn: str) -> Any:
    secret = secrets.token_urlsafe(16)
    provider = configure(start_provider, secret)

    @contextlib.contextmanager
    def build(**oidc: Any) -> Iterator[BrowserClient]:
        with fw_rp_browser(provider.issuer, sqlite_dsn, secret, oidc=oidc, post_login_path="/me") as (
            client,
            _,
        ):
            yield client

    return provider, build


def sign_in(client: BrowserClient) -> httpx2.Response:
    login_page = client.get("/auth/login", follow_redirects=True)
    assert login_page.status_code == 200 and 'name="login"' in login_page.text, login_page.text
    consent = submit_form(client, login_page, login="alice", password="any")
    if consent.url.path.startswith("/interaction/"):
        return submit_form(client, consent)
    return consent


def test_login_with_a_certified_provider_starts_a_session(rp: Any) -> None:
    provider, build = rp
    with build(scopes=["profile", "email"]) as client:
        landed = sign_in(client)
        assert landed.status_code == 200, landed.text
        assert str(landed.url) == f"{ORIGIN}/me"
        me = landed.json()
        assert me["signed_in"] is True
        assert me["key"] == "alice" and me["issuer"] == provider.issuer


def test_global_logout_is_accepted_by_the_certified_provider(rp: Any) -> None:
    provider, build = rp
    with build(logout_scope="global") as client:
        sign_in(client)
        response = client.logout()
        assert response.status_code == 303
        location = urlsplit(response.headers["location"])
        assert location.netloc == urlsplit(provider.issuer).netloc
        assert parse_qs(location.query) == {
            "client_id": ["fw-rp"],
            "post_logout_redirect_uri": [f"{ORIGIN}/"],
        }
        confirm = client.get(response.headers["location"], follow_redirects=False)
        assert confirm.status_code == 200  # the provider asks the person to confirm; no error page
        assert client.get("/me").json() == {"signed_in": False}


def test_after_reconfirm_logout_the_certified_provider_asks_again(rp: Any) -> None:
    _, build = rp
    with build() as client:
        sign_in(client)
        client.logout()
        again = client.get("/auth/login", follow_redirects=True)
        assert 'name="login"' in again.text  # prompt=login: the provider's session does not answer
