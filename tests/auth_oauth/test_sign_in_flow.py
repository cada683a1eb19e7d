"""The whole ``oauth_only`` flow against the X stand-in: PKCE, Basic auth, lookup, session, sign-out."""

from __future__ import annotations

import base64
import hashlib
import logging
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from auth_oauth.support import accounts, assert_no_token_kept, assert_signed_out, sessions
from fw.devidp.x import XUser
from fw.testing import TestOAuthProvider


@pytest.fixture(autouse=True)
def _all_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)


def test_a_person_signs_in_at_x_and_handlers_see_the_profile_fields(
    browser: Any, x: TestOAuthProvider
) -> None:
    alice = x.profile("alice")
    client = browser()
    before = int(time.time())
    landed = client.get("/auth/login", params={"next": "/private/page"}, follow_redirects=True)
    assert landed.status_code == 200 and landed.json() == {"page": "/private/page"}
    me = client.get("/me").json()
    assert me["signed_in"] and me["method"] == "oauth"
    assert (me["provider"], me["subject"], me["issuer"], me["key"]) == ("x", alice["id"], "x", alice["id"])
    assert (me["username"], me["avatar_url"]) == (alice["username"], alice["profile_image_url"])
    assert me["display_name"] == alice["name"] and me["email"] == ""
    assert before <= me["auth_time"] <= int(time.time())  # max_age is measured from the login


def test_the_authorization_request_carries_pkce_s256_state_and_the_default_scopes(
    browser: Any, x: TestOAuthProvider
) -> None:
    client = browser()
    sent = client.get("/auth/login", follow_redirects=False)
    assert sent.status_code == 302 and sent.headers["location"].startswith(x.authorization_endpoint)
    client.get(sent.headers["location"], follow_redirects=True)
    [query] = x.state.authorizations
    assert query["response_type"] == "code" and query["client_id"] == x.client_id
    assert query["scope"] == "users.read tweet.read" and "offline.access" not in query["scope"]
    assert query["code_challenge_method"] == "S256" and len(query["state"]) >= 32
    assert query["redirect_uri"] == "http://localhost:8000/auth/callback"  # loopback: request origin
    [token] = x.state.token_requests
    digest = hashlib.sha256(token.form["code_verifier"].encode()).digest()
    assert base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == query["code_challenge"]


def test_configured_scopes_replace_the_default(browser: Any, x: TestOAuthProvider) -> None:
    client = browser(oauth={"scopes": ["users.read", "tweet.read", "follows.read"]})
    client.get("/auth/login", follow_redirects=True)
    assert x.state.authorizations[0]["scope"] == "users.read tweet.read follows.read"


def test_the_code_is_redeemed_with_basic_auth_and_the_lookup_carries_only_the_access_token(
    browser: Any, x: TestOAuthProvider
) -> None:
    browser().get("/auth/login", follow_redirects=True)
    [token] = x.state.token_requests
    basic = base64.b64encode(f"{x.client_id}:{x.client_secret}".encode()).decode()
    assert token.headers["authorization"] == f"Basic {basic}"
    assert "client_secret" not in token.form and token.form["grant_type"] == "authorization_code"
    [lookup] = x.state.lookups
    assert lookup.headers["authorization"] == f"Bearer {x.issued_tokens[0]}"
    assert lookup.query == {"user.fields": "profile_image_url"}
    assert "cookie" not in lookup.headers


def test_the_access_token_is_stored_nowhere_and_logged_nowhere(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = browser()
    client.get("/auth/login", follow_redirects=True)
    assert client.get("/me").json()["signed_in"] and len(x.issued_tokens) == 1
    assert_no_token_kept(x, sqlite_dsn, caplog)
    assert x.state.token_requests[0].form.get("scope") is None  # no refresh token asked for


def test_the_account_link_is_the_provider_and_the_user_id(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    client = browser()
    client.get("/auth/login", follow_redirects=True)
    first = client.get("/me").json()["account_id"]
    alice = x.profile("alice")
    x.add_user(XUser(alice["id"], "alice_renamed", alice["name"]))
    x.login_user(alice["id"])  # the handle changed; the id stays
    client.get("/auth/login", follow_redirects=True)
    again = client.get("/me").json()
    assert again["account_id"] == first and again["username"] == "alice_renamed"
    assert accounts(sqlite_dsn) == [("x", alice["id"])]


def test_another_identity_claim_links_by_that_claim(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    client = browser(oauth={"identity_claim": "preferred_username"})
    client.get("/auth/login", follow_redirects=True)
    me = client.get("/me").json()
    assert me["key"] == "alice" and me["subject"] == x.profile("alice")["id"]
    assert accounts(sqlite_dsn) == [("x", "alice")]


def test_sign_out_ends_only_the_local_session(browser: Any, x: TestOAuthProvider, sqlite_dsn: str) -> None:
    client = browser()
    client.get("/auth/login", follow_redirects=True)
    calls = len(x.state.requests)
    out = client.logout()
    assert out.status_code == 303 and out.headers["location"] == "/"
    assert_signed_out(client, sqlite_dsn)
    assert len(x.state.requests) == calls  # the provider is not contacted: its own session stays


def test_a_cross_origin_logout_is_refused(browser: Any, sqlite_dsn: str) -> None:
    client = browser()
    client.get("/auth/login", follow_redirects=True)
    refused = client.post("/auth/logout", headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and sessions(sqlite_dsn) == 1
    assert client.get("/auth/logout").status_code == 405


def test_an_anonymous_request_to_a_protected_page_goes_through_login(browser: Any) -> None:
    sent = browser().get("/private/x?y=1", follow_redirects=False)
    assert sent.status_code == 302
    assert urlsplit(sent.headers["location"]).path == "/auth/login"


def test_a_configured_redirect_url_is_sent_as_is(browser: Any, x: TestOAuthProvider) -> None:
    client = browser(oauth={"redirect_url": "http://localhost:8000/auth/callback"})
    client.get("/auth/login", follow_redirects=True)
    assert x.state.authorizations[0]["redirect_uri"] == "http://localhost:8000/auth/callback"
    assert client.get("/me").json()["signed_in"]
