"""One sign-in at a certified provider (npm ``oidc-provider``) whose client is registered without
``require_auth_time``: fw asks for ``auth_time`` as an essential ID-token claim (OpenID Connect
Core 5.5.1.1), so the sign-in carries its proof time and satisfies every guard whose window it
meets (a page, an API, a policy, passkey registration in ``oidc_passkey``) without a second trip
to the provider. A provider that ignores the request leaves the proof time unknown: guards step
up, and fw says so in its log once."""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from auth_oidc.test_interop_oidc_provider import submit_form
from auth_passkey_modes.support import PasskeyBrowser, oidc_passkey_toml, user_app
from interop.conftest import RunningProvider, relying_party, start_provider

import fw
from auth_assurance.support import open_guarded, read_session
from fw.testing import BrowserClient, configured

__all__ = ["start_provider"]  # the harness fixture, used below

ORIGIN = "http://localhost:8000"
PASSKEY_ORIGIN = "http://localhost"  # the passkey tests' RP ID is localhost, on the default port
ESSENTIAL_AUTH_TIME = {"id_token": {"auth_time": {"essential": True}}}
Start = Callable[[dict[str, Any]], RunningProvider]


def provider_for(start: Start, secret: str, *, claims_parameter: bool) -> RunningProvider:
    """The certified provider with one client registered without ``require_auth_time``;
    ``claims_parameter`` turns its support of the ``claims`` request parameter on or off."""
    return start(
        {
            "clients": [
                relying_party(secret, ORIGIN, PASSKEY_ORIGIN, require_auth_time=False),
            ],
            "accounts": {"alice": {"email": "alice@interop.test", "name": "Alice Interop"}},
            "features": {"claimsParameter": {"enabled": claims_parameter}},
        }
    )


class Trips:
    """The authorization requests a browser sends to the provider (every redirect hop seen)."""

    def __init__(self, client: BrowserClient, provider: RunningProvider) -> None:
        self.provider = provider
        self.requests: list[httpx2.URL] = []
        client.event_hooks["request"].append(self._record)

    def _record(self, request: httpx2.Request) -> None:
        if str(request.url).startswith(f"{self.provider.issuer}/auth?"):
            self.requests.append(request.url)

    def claims_asked(self) -> list[Any]:
        return [json.loads(parse_qs(urlsplit(str(url)).query)["claims"][0]) for url in self.requests]


def through_provider(client: BrowserClient, page: httpx2.Response) -> httpx2.Response:
    """Answer the provider's pages (login as alice, consent) until fw answers; that answer."""
    assert 'name="login"' in page.text, page.text
    answer = page
    for _ in range(5):
        if answer.url.host == "localhost" or "<form" not in answer.text:  # back at fw
            break
        login = {"login": "alice", "password": "any"} if 'name="login"' in answer.text else {}
        answer = submit_form(client, answer, **login)
    return answer


@pytest.fixture
def guarded_rp(start_provider: Start, sqlite_dsn: str) -> Callable[[bool], Any]:
    """``guarded_rp(claims_parameter)``: the guarded App in front of the provider, and the provider."""

    @contextlib.contextmanager
    def build(claims_parameter: bool) -> Iterator[tuple[BrowserClient, fw.App, RunningProvider]]:
        secret = secrets.token_urlsafe(16)
        provider = provider_for(start_provider, secret, claims_parameter=claims_parameter)
        with open_guarded(
            provider.issuer, sqlite_dsn, base_url=ORIGIN, client_id="fw-rp", client_secret=secret
        ) as (client, app):
            yield client, app, provider

    return build


def test_a_sign_in_from_a_guarded_page_lands_on_it_in_one_trip_to_the_provider(
    guarded_rp: Callable[[bool], Any],
) -> None:
    with guarded_rp(True) as (client, app, provider):
        trips = Trips(client, provider)
        landed = through_provider(client, client.get("/settings", follow_redirects=True))
        assert landed.json() == {"page": "settings"} and str(landed.url) == f"{ORIGIN}/settings"
        assert trips.claims_asked() == [ESSENTIAL_AUTH_TIME]  # one authorization request
        summary = read_session(client, app)
        assert summary is not None and summary.auth_time is not None and summary.confirmed_at is None


def test_a_fresh_sign_in_satisfies_a_max_age_api_guard(guarded_rp: Callable[[bool], Any]) -> None:
    with guarded_rp(True) as (client, _, _):
        through_provider(client, client.get("/auth/login?next=/me", follow_redirects=True))
        answer = client.get("/api/settings")
        assert answer.status_code == 200 and answer.json() == {"settings": True}, answer.text


def test_a_fresh_sign_in_satisfies_a_max_age_policy(guarded_rp: Callable[[bool], Any]) -> None:
    with guarded_rp(True) as (client, _, _):
        through_provider(client, client.get("/auth/login?next=/me", follow_redirects=True))
        assert client.get("/reading", follow_redirects=False).json() == {"page": "reading"}
        assert client.get("/policy/read_settings", follow_redirects=False).json() == {"page": "policy"}


def test_a_fresh_sign_in_never_satisfies_a_confirmation(guarded_rp: Callable[[bool], Any]) -> None:
    with guarded_rp(True) as (client, _, _):
        through_provider(client, client.get("/auth/login?next=/me", follow_redirects=True))
        refused = client.get("/confirmed", follow_redirects=False)
        assert refused.status_code == 303 and "max_age=300" in refused.headers["location"]


def test_a_fresh_sign_in_in_oidc_passkey_registers_a_passkey_at_once(
    start_provider: Start, sqlite_dsn: str
) -> None:
    secret = secrets.token_urlsafe(16)
    provider = provider_for(start_provider, secret, claims_parameter=True)
    toml = oidc_passkey_toml(provider.issuer, "fw-rp", sqlite_dsn)
    with (
        configured(toml=toml, env={"AUTH_OIDC_CLIENT_SECRET": secret}),
        BrowserClient(user_app(), provider.issuer, base_url=PASSKEY_ORIGIN) as client,
    ):
        through_provider(client, client.get("/auth/login?next=/me", follow_redirects=True))
        browser = PasskeyBrowser(client)
        account = browser.me()["account_id"]
        begun = browser.post("/register/begin")
        assert begun.status_code == 200, begun.text
        registered = browser.post("/register/finish", browser.authenticator.create(begun.json()))
        assert registered.status_code == 200, registered.text
        [listed] = browser.call(fw.auth.passkeys, account)
        assert listed.credential_id == registered.json()["credential_id"]


def test_a_provider_that_ignores_the_request_leaves_the_proof_time_unknown_and_is_logged_once(
    guarded_rp: Callable[[bool], Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="fw.auth")
    with guarded_rp(False) as (client, app, provider):
        trips = Trips(client, provider)
        through_provider(client, client.get("/auth/login?next=/me", follow_redirects=True))
        summary = read_session(client, app)
        assert summary is not None and summary.auth_time is None  # arrival is not a proof time
        # The step-up sends max_age, which obliges auth_time: the second trip fills the window.
        landed = through_provider(client, client.get("/settings", follow_redirects=True))
        assert landed.json() == {"page": "settings"}
        assert len(trips.requests) == 2
        client.cookies.delete("fw_session")  # a second sign-in, answered by the provider's session
        assert client.get("/auth/login?next=/me", follow_redirects=True).json()["signed_in"] is True
    warnings = [r for r in caplog.records if "auth_time" in r.getMessage() and r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in caplog.records]
    message = warnings[0].getMessage()
    assert provider.issuer in message and "claims_parameter_supported" in message
    assert "require_auth_time" in message
