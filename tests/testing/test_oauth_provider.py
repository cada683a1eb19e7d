"""The X-shaped stand-in answers as X does: authorize, token with Basic client authentication,
the own-user lookup, and each way a test can make that lookup fail."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from fw.devidp import NotLoopbackError
from fw.devidp.x import RunningXProvider, XUser
from fw.testing import BrowserClient, TestOAuthProvider, login_user, oauth_provider

CALLBACK = "http://127.0.0.1:8000/auth/callback"
VERIFIER = "v" * 43


@pytest.fixture
def x() -> Iterator[TestOAuthProvider]:
    with oauth_provider() as provider:
        yield provider


def challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def authorize(x: TestOAuthProvider, **extra: str) -> httpx2.Response:
    params = {
        "response_type": "code",
        "client_id": x.client_id,
        "redirect_uri": CALLBACK,
        "scope": "users.read tweet.read",
        "state": "the-state",
        "code_challenge": challenge(VERIFIER),
        "code_challenge_method": "S256",
        **extra,
    }
    return httpx2.get(x.authorization_endpoint, params=params)


def answer(response: httpx2.Response) -> dict[str, str]:
    assert response.status_code == 302, response.text
    location = response.headers["location"]
    assert location.startswith(CALLBACK)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def redeem(
    x: TestOAuthProvider, code: str, *, verifier: str = VERIFIER, auth: tuple[str, str] | None = None
) -> httpx2.Response:
    return httpx2.post(
        x.token_endpoint,
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": CALLBACK,
            "code_verifier": verifier,
        },
        auth=auth or (x.client_id, x.client_secret),
    )


def signed_in_token(x: TestOAuthProvider, who: str = "alice", **extra: str) -> dict[str, object]:
    x.login_user(who)
    tokens = redeem(x, answer(authorize(x, **extra))["code"])
    assert tokens.status_code == 200, tokens.text
    body: dict[str, object] = tokens.json()
    return body


def lookup(x: TestOAuthProvider, token: object) -> httpx2.Response:
    return httpx2.get(x.user_endpoint, headers={"Authorization": f"Bearer {token}"})


# The environment fw dev injects.
def test_env_names_the_client_and_the_three_endpoints_on_loopback(x: TestOAuthProvider) -> None:
    env = x.env
    assert env["AUTH_OAUTH_CLIENT_ID"] == x.client_id and env["AUTH_OAUTH_CLIENT_SECRET"] == x.client_secret
    assert env["AUTH_OAUTH_AUTHORIZATION_ENDPOINT"] == f"{x.origin}/i/oauth2/authorize"
    assert env["AUTH_OAUTH_TOKEN_ENDPOINT"] == f"{x.origin}/2/oauth2/token"
    assert env["AUTH_OAUTH_USER_ENDPOINT"] == f"{x.origin}/2/users/me?user.fields=profile_image_url"
    assert x.origin.startswith("http://127.0.0.1:")


# Authorization endpoint.
def test_without_a_preset_user_authorize_shows_a_picker_and_no_password(x: TestOAuthProvider) -> None:
    page = authorize(x)
    assert page.status_code == 200
    assert "Alice Example" in page.text and "@bob" in page.text
    assert "password" not in page.text.lower().replace("no password", "")
    assert x.state.authorizations[-1]["scope"] == "users.read tweet.read"


def test_the_picker_and_error_pages_carry_the_development_banner(x: TestOAuthProvider) -> None:
    for page in (authorize(x), authorize(x, client_id="nobody")):
        assert "Development identity provider — no password is checked" in page.text
        assert "class='fw-devidp-banner'" in page.text and ".fw-devidp-banner {" in page.text


def test_choosing_on_the_picker_redirects_with_a_code_and_the_state_echoed(
    x: TestOAuthProvider,
) -> None:
    form = {**dict(authorize(x).request.url.params), "user": "1002"}
    query = answer(httpx2.post(x.authorization_endpoint, data=form))
    assert query["state"] == "the-state" and query["code"]
    assert "iss" not in query  # X names no issuer
    body = redeem(x, query["code"]).json()
    assert lookup(x, body["access_token"]).json()["data"]["username"] == "bob"


def test_a_user_who_cancels_is_sent_back_with_access_denied(x: TestOAuthProvider) -> None:
    form = {**dict(authorize(x).request.url.params), "deny": "1"}
    assert answer(httpx2.post(x.authorization_endpoint, data=form)) == {
        "error": "access_denied",
        "state": "the-state",
    }


def test_pkce_s256_is_required(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    assert answer(authorize(x, code_challenge_method="plain"))["error"] == "invalid_request"
    assert answer(authorize(x, code_challenge=""))["error"] == "invalid_request"
    assert answer(authorize(x, response_type="token"))["error"] == "unsupported_response_type"


def test_an_unknown_client_redirect_or_scope_gets_an_error_page(x: TestOAuthProvider) -> None:
    for extra in (
        {"client_id": "nobody"},
        {"redirect_uri": "https://elsewhere.example/cb"},
        {"scope": "openid"},
    ):
        refused = authorize(x, **extra)
        assert refused.status_code == 400 and "location" not in refused.headers


def test_a_registered_redirect_uri_is_matched_exactly() -> None:
    with oauth_provider(redirect_uris=[CALLBACK], login_user="alice") as x:
        assert answer(authorize(x))["code"]
        assert authorize(x, redirect_uri="http://127.0.0.1:8001/auth/callback").status_code == 400


def test_login_user_accepts_an_id_or_a_username_and_refuses_strangers(x: TestOAuthProvider) -> None:
    login_user(x, "1001")
    assert x.state.preset_user == "1001"
    x.login_user("bob")
    with pytest.raises(LookupError, match="carol"):
        x.login_user("carol")


# Token endpoint.
def test_the_token_answer_is_a_two_hour_bearer_without_refresh_or_id_token(
    x: TestOAuthProvider,
) -> None:
    tokens = signed_in_token(x)
    assert tokens["token_type"] == "bearer" and tokens["expires_in"] == 7200
    assert tokens["scope"] == "users.read tweet.read"
    assert set(tokens) == {"token_type", "expires_in", "access_token", "scope"}


def test_offline_access_alone_brings_a_refresh_token_that_works_once(x: TestOAuthProvider) -> None:
    tokens = signed_in_token(x, scope="users.read tweet.read offline.access")
    refresh = {"grant_type": "refresh_token", "refresh_token": str(tokens["refresh_token"])}
    again = httpx2.post(x.token_endpoint, data=refresh, auth=(x.client_id, x.client_secret))
    assert again.status_code == 200 and lookup(x, again.json()["access_token"]).status_code == 200
    replay = httpx2.post(x.token_endpoint, data=refresh, auth=(x.client_id, x.client_secret))
    assert replay.status_code == 400


def test_the_token_endpoint_requires_http_basic_client_authentication(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    code = answer(authorize(x))["code"]
    in_body = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "code_verifier": VERIFIER,
        "client_id": x.client_id,
        "client_secret": x.client_secret,
    }
    refused = httpx2.post(x.token_endpoint, data=in_body)
    assert refused.status_code == 401 and refused.json()["error"] == "unauthorized_client"
    assert redeem(x, code, auth=(x.client_id, "wrong")).status_code == 401
    assert x.state.token_requests[-1].form["code"] == code


def test_a_wrong_code_verifier_is_refused_with_x_wording(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    refused = redeem(x, answer(authorize(x))["code"], verifier="w" * 43)
    assert refused.status_code == 400
    assert refused.json() == {
        "error": "invalid_request",
        "error_description": "Value passed for the code verifier did not match the code challenge.",
    }


def test_a_code_is_single_use(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    code = answer(authorize(x))["code"]
    assert redeem(x, code).status_code == 200
    replay = redeem(x, code)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"


def test_an_expired_code_is_an_invalid_grant(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    code = answer(authorize(x))["code"]
    x.expire_codes()
    expired = redeem(x, code)
    assert expired.status_code == 400 and expired.json()["error"] == "invalid_grant"


def test_codes_expire_after_the_configured_lifetime() -> None:
    with oauth_provider(login_user="alice", code_lifetime=0.05) as x:
        code = answer(authorize(x))["code"]
        time.sleep(0.1)
        assert redeem(x, code).json()["error"] == "invalid_grant"


# Each token-endpoint test gets its own code so it reads whole; the request and the answer differ.
def test_the_redirect_uri_must_match_the_authorization_request(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    code = answer(authorize(x))["code"]
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK + "x",
        "code_verifier": VERIFIER,
    }
    refused = httpx2.post(x.token_endpoint, data=data, auth=(x.client_id, x.client_secret))
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_request"


# Authorization and token failures on demand.
def test_a_failed_authorization_sends_the_error_to_the_callback_until_cleared(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    x.fail_authorization("access_denied")
    assert answer(authorize(x)) == {"error": "access_denied", "state": "the-state"}
    x.fail_authorization(None)
    assert answer(authorize(x))["code"]


def test_a_failed_token_request_answers_the_error_asked_for_until_cleared(x: TestOAuthProvider) -> None:
    x.login_user("alice")
    code = answer(authorize(x))["code"]
    x.fail_token("invalid_grant", "Value passed for the token was invalid.", status=400)
    refused = redeem(x, code)
    assert refused.status_code == 400
    assert refused.json() == {
        "error": "invalid_grant",
        "error_description": "Value passed for the token was invalid.",
    }
    x.fail_token(None)
    assert redeem(x, code).status_code == 200  # the refused request did not spend the code


def test_a_token_failure_is_still_behind_client_authentication(x: TestOAuthProvider) -> None:
    x.fail_token("temporarily_unavailable", status=503)
    x.login_user("alice")
    code = answer(authorize(x))["code"]
    assert redeem(x, code, auth=(x.client_id, "wrong")).status_code == 401
    assert redeem(x, code).status_code == 503


def test_a_token_failure_needs_an_error_code_and_an_error_status(x: TestOAuthProvider) -> None:
    with pytest.raises(ValueError, match="status"):
        x.fail_token("invalid_grant", status=200)
    with pytest.raises(ValueError, match="RFC 6749"):
        x.fail_authorization("")


# What the stand-in records.
def test_every_request_is_recorded_with_its_headers_and_form(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    lookup(x, token)
    assert [(seen.method, seen.path) for seen in x.state.requests] == [
        ("GET", "/i/oauth2/authorize"),
        ("POST", "/2/oauth2/token"),
        ("GET", "/2/users/me"),
    ]
    [redemption] = x.state.token_requests
    assert redemption.form["code_verifier"] == VERIFIER
    assert redemption.headers["authorization"].startswith("Basic ")
    assert x.state.lookups[0].query == {"user.fields": "profile_image_url"}
    assert x.issued_tokens == [token]


def test_profile_is_what_the_lookup_answers(x: TestOAuthProvider) -> None:
    token = signed_in_token(x, "bob")["access_token"]
    assert lookup(x, token).json() == {"data": x.profile("bob")}
    with pytest.raises(LookupError, match="carol"):
        x.profile("carol")


# The own-user lookup.
def test_the_lookup_answers_the_profile_with_the_avatar_asked_for(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    profile = lookup(x, token).json()
    assert profile == {
        "data": {
            "id": "1001",
            "name": "Alice Example",
            "username": "alice",
            "profile_image_url": f"{x.origin}/profile_images/1001.svg",
        }
    }
    plain = httpx2.get(f"{x.origin}/2/users/me", headers={"Authorization": f"Bearer {token}"}).json()
    assert "profile_image_url" not in plain["data"]
    avatar = httpx2.get(profile["data"]["profile_image_url"])
    assert avatar.status_code == 200 and avatar.headers["content-type"].startswith("image/svg+xml")
    assert x.state.lookups[-1].query == {}
    assert "authorization" in x.state.lookups[0].headers


def test_a_user_with_their_own_avatar_url_gets_it_back() -> None:
    user = XUser("2244994945", "XDevelopers", "Developers", "https://pbs.example/avatar_normal.jpg")
    with oauth_provider(users=[user], login_user="XDevelopers") as x:
        profile = lookup(x, signed_in_token(x, "XDevelopers")["access_token"]).json()
        assert profile["data"]["profile_image_url"] == "https://pbs.example/avatar_normal.jpg"


def test_a_lookup_without_a_valid_token_is_a_401_problem(x: TestOAuthProvider) -> None:
    for headers in ({}, {"Authorization": "Bearer forged"}, {"Authorization": f"Basic {x.client_secret}"}):
        refused = httpx2.get(x.user_endpoint, headers=headers)
        assert refused.status_code == 401
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json() == {
            "title": "Unauthorized",
            "type": "about:blank",
            "status": 401,
            "detail": "Unauthorized",
        }


def test_a_token_without_users_read_is_forbidden_the_lookup(x: TestOAuthProvider) -> None:
    token = signed_in_token(x, scope="tweet.read")["access_token"]
    assert lookup(x, token).status_code == 403


def test_an_unknown_user_field_is_an_invalid_request(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    refused = httpx2.get(
        f"{x.origin}/2/users/me?user.fields=email", headers={"Authorization": f"Bearer {token}"}
    )
    assert refused.status_code == 400 and refused.json()["title"] == "Invalid Request"


# Lookup failures on demand.
def test_a_rate_limited_lookup_is_a_429_with_its_reset_time(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("rate_limited")
    limited = lookup(x, token)
    assert limited.status_code == 429 and limited.json()["title"] == "Too Many Requests"
    assert int(limited.headers["x-rate-limit-reset"]) > time.time()
    assert limited.headers["x-rate-limit-remaining"] == "0"
    x.fail_lookup(None)
    assert lookup(x, token).status_code == 200


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_lookup_answers_the_5xx_asked_for(x: TestOAuthProvider, status: int) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("server_error", status=status)
    failed = lookup(x, token)
    assert failed.status_code == status and failed.json()["status"] == status


def test_a_server_error_must_be_a_5xx(x: TestOAuthProvider) -> None:
    with pytest.raises(ValueError, match="5xx"):
        x.fail_lookup("server_error", status=404)
    with pytest.raises(ValueError, match="5xx"):
        x.fail_lookup("proxy_error", status=200)


def test_a_status_is_refused_for_a_failure_that_takes_none(x: TestOAuthProvider) -> None:
    with pytest.raises(ValueError, match="takes no status"):
        x.fail_lookup("html", status=502)


def test_an_unknown_failure_name_lists_the_known_ones(x: TestOAuthProvider) -> None:
    with pytest.raises(ValueError, match="rate_limited"):
        x.fail_lookup("timeout")  # type: ignore[arg-type]


def test_a_rate_limit_resets_when_the_test_says(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("rate_limited", reset_after=120)
    reset = int(lookup(x, token).headers["x-rate-limit-reset"])
    assert time.time() + 110 <= reset <= time.time() + 120


def test_a_proxy_error_is_an_html_page_with_the_5xx_asked_for(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("proxy_error")
    assert lookup(x, token).status_code == 502
    x.fail_lookup("proxy_error", status=500)
    page = lookup(x, token)
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")


def test_an_unauthorized_lookup_fails_even_with_a_good_token(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("unauthorized")
    assert lookup(x, token).status_code == 401


def test_malformed_profiles_are_missing_data_missing_id_or_a_numeric_id(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("missing_data")
    missing_data = lookup(x, token)
    assert missing_data.status_code == 200 and "data" not in missing_data.json()
    x.fail_lookup("missing_id")
    assert lookup(x, token).json()["data"] == {
        "name": "Alice Example",
        "username": "alice",
        "profile_image_url": f"{x.origin}/profile_images/1001.svg",
    }
    x.fail_lookup("numeric_id")
    assert lookup(x, token).json()["data"]["id"] == 1001
    x.fail_lookup("empty_id")
    assert lookup(x, token).json()["data"]["id"] == ""
    x.fail_lookup("not_an_object")
    assert lookup(x, token).json() == [x.profile("alice")]


def test_an_html_lookup_answer_is_not_json(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("html")
    page = lookup(x, token)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    with pytest.raises(json.JSONDecodeError):
        json.loads(page.text)


def test_an_oversized_lookup_answer_streams_megabytes_without_a_declared_length(x: TestOAuthProvider) -> None:
    token = signed_in_token(x)["access_token"]
    x.fail_lookup("oversized")
    big = lookup(x, token)
    assert "content-length" not in big.headers
    assert len(big.content) > 2 * 1024 * 1024 and big.json()["data"]["username"] == "padded"


# The browser client follows the flow through the stand-in.
def test_browser_client_follows_redirects_through_the_stand_in_back_to_the_app(x: TestOAuthProvider) -> None:
    async def start(request: Request) -> Response:
        return RedirectResponse(str(authorize(x).request.url), status_code=302)

    async def callback(request: Request) -> Response:
        return JSONResponse(dict(request.query_params))

    app = Starlette(routes=[Route("/start", start), Route("/auth/callback", callback)])
    with BrowserClient(app, x, base_url="http://127.0.0.1:8000") as client:
        client.login("bob", login_path="/start")
        landed = client.get("/start", follow_redirects=True).json()
    assert landed["state"] == "the-state" and redeem(x, landed["code"]).status_code == 200


# Where it may run.
@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.com"])
def test_it_refuses_to_bind_beyond_loopback(host: str) -> None:
    with pytest.raises(NotLoopbackError, match="stand-in for X"):
        RunningXProvider(host=host)


def test_it_refuses_to_run_outside_app_env_dev(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_ENV", "prod")
    with pytest.raises(NotLoopbackError, match="APP_ENV"):
        RunningXProvider()


def test_it_answers_only_requests_addressed_to_a_loopback_name(x: TestOAuthProvider) -> None:
    rebound = httpx2.get(x.authorization_endpoint, headers={"Host": "attacker.example"})
    assert rebound.status_code == 421
