"""Browser login against the development provider: landing, protection, rotation, logout, reconfirm."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from auth_oidc.conftest import Build
from fw.auth.settings import Protection
from fw.testing import BrowserClient, TestIdentityProvider, login_user


def session_token(client: BrowserClient) -> str | None:
    return next((c.value for c in client.cookies.jar if c.name == "fw_session"), None)


def plant(client: BrowserClient, value: str) -> None:
    """Replace the browser's session cookie (the jar keys localhost cookies as localhost.local)."""
    client.cookies.clear()
    client.cookies.set("fw_session", value, domain="localhost.local")


def start_login(client: BrowserClient, path: str = "/auth/login") -> str:
    """Go to the provider and return the callback URL it sends the browser back to."""
    to_provider = client.get(path, follow_redirects=False)
    assert to_provider.status_code == 302
    back = client.get(to_provider.headers["location"], follow_redirects=False)
    assert back.status_code == 302
    return str(back.headers["location"])


def test_one_request_to_the_login_path_signs_the_preset_user_in(
    store_browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = store_browser()
    login_user(idp, "alice")
    response = client.get("/auth/login", follow_redirects=True)
    assert response.status_code == 200
    assert response.json()["page"] == "home"
    me = client.get("/me").json()
    assert me["signed_in"] is True
    assert me["display_name"] == "Alice Example"
    assert me["email"] == "alice@example.test"
    assert me["issuer"] == idp.issuer
    assert me["key"] == "alice"


def test_an_anonymous_request_is_a_normal_state(browser: Build) -> None:
    client, _ = browser()
    assert client.get("/me").json() == {"signed_in": False}


def test_the_session_cookie_is_an_opaque_httponly_lax_token(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    to_provider = client.get("/auth/login", follow_redirects=False)
    callback = client.get(to_provider.headers["location"], follow_redirects=False).headers["location"]
    finished = client.get(callback, follow_redirects=False)
    header = next(h for h in finished.headers.get_list("set-cookie") if h.startswith("fw_session="))
    token = header.split(";")[0].split("=", 1)[1]
    assert len(token) == 43
    assert "HttpOnly" in header and "SameSite=Lax" in header
    assert "Secure" not in header  # plain-http loopback development only
    assert "alice" not in token


def test_the_authorization_request_uses_pkce_state_nonce_and_added_scopes(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser(oidc={"scopes": ["profile", "email"]})
    location = client.get("/auth/login", follow_redirects=False).headers["location"]
    query = parse_qs(urlsplit(location).query)
    assert query["code_challenge_method"] == ["S256"]
    assert len(query["code_challenge"][0]) == 43
    assert query["scope"] == ["openid profile email"]
    assert query["state"][0] and query["nonce"][0]
    assert query["redirect_uri"] == ["http://localhost:8000/auth/callback"]
    assert "prompt" not in query


def test_login_lands_on_the_requested_path(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    idp.login_user("bob")
    response = client.login(next="/private/reports?year=2024")
    assert response.json() == {"page": "/private/reports", "user": client.get("/me").json()["account_id"]}
    assert str(response.url).endswith("/private/reports?year=2024")


@pytest.mark.parametrize(
    "unsafe",
    [
        "//evil.example",
        "/\\evil.example",
        "https://evil.example/",
        "/%2F%2Fevil.example",
        "/%5Cevil.example",
        "/%252F%252Fevil.example",
        "/\t/evil.example",
        "/a\nb",
        "javascript:alert(1)",
        "evil",
    ],
)
def test_an_unsafe_return_path_is_dropped_never_followed(
    browser: Build, idp: TestIdentityProvider, unsafe: str
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    response = client.login(next=unsafe)
    assert response.status_code == 200
    assert str(response.url) == "http://localhost:8000/"


def test_a_protected_path_goes_through_login_and_back(
    store_browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = store_browser()
    first = client.get("/private/x?y=1", follow_redirects=False)
    assert first.status_code == 302
    assert first.headers["location"] == "/auth/login?next=%2Fprivate%2Fx%3Fy%3D1"
    idp.login_user("alice")
    landed = client.get("/private/x?y=1", follow_redirects=True)
    assert landed.status_code == 200
    assert landed.json()["page"] == "/private/x"


def test_a_protected_path_answers_401_when_configured_unauthorized(browser: Build) -> None:
    client, _ = browser(
        protection=Protection(
            include=["/private/"], exclude=["/private/open"], unauthenticated="unauthorized"
        )
    )
    response = client.get("/private/x")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "unauthorized"
    assert client.get("/private/open").status_code == 200


def test_unprotected_paths_stay_public(browser: Build) -> None:
    client, _ = browser()
    assert client.get("/").json() == {"page": "home", "user": None}


def test_login_rotates_the_token_and_revokes_the_earlier_session(
    store_browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = store_browser()
    idp.login_user("alice")
    client.login()
    first = session_token(client)
    client.login()
    second = session_token(client)
    assert first and second and first != second
    assert client.get("/me").json()["signed_in"] is True
    plant(client, first)
    assert client.get("/me").json() == {"signed_in": False}


def test_a_session_cookie_planted_before_login_is_not_adopted(
    store_browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = store_browser()
    plant(client, "A" * 43)
    idp.login_user("alice")
    client.login()
    assert session_token(client) not in (None, "A" * 43)


@pytest.mark.parametrize("value", ["garbage", "A" * 43, "A" * 42, "%00", "x" * 5000])
def test_forged_or_truncated_session_cookies_are_dropped_silently(browser: Build, value: str) -> None:
    client, _ = browser()
    plant(client, value)
    response = client.get("/me")
    assert response.status_code == 200
    assert response.json() == {"signed_in": False}


def test_a_truncated_real_session_cookie_is_anonymous(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    token = session_token(client)
    assert token
    plant(client, token[:-1])
    assert client.get("/me").json() == {"signed_in": False}
    assert client.get("/private/x", follow_redirects=False).status_code == 302


def test_logout_accepts_post_only(browser: Build) -> None:
    client, _ = browser()
    response = client.get("/auth/logout")
    assert response.status_code == 405


def test_logout_destroys_the_session_and_expires_its_cookies(
    store_browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = store_browser()
    idp.login_user("alice")
    client.login()
    token = session_token(client)
    response = client.logout()
    assert response.status_code == 303
    assert response.headers["location"] == "/"
    expired = [h for h in response.headers.get_list("set-cookie") if h.startswith("fw_session=;")]
    assert expired and "Max-Age=0" in expired[0]
    assert client.get("/me").json() == {"signed_in": False}
    plant(client, token or "")
    assert client.get("/me").json() == {"signed_in": False}


def test_a_cross_origin_logout_is_refused(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    response = client.post("/auth/logout", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json()["code"] == "cross_origin"
    assert client.get("/me").json()["signed_in"] is True
    cross_site = client.post("/auth/logout", headers={"Sec-Fetch-Site": "cross-site"})
    assert cross_site.status_code == 403


def test_after_reconfirm_logout_the_next_authorization_demands_proof(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    client.logout()
    location = client.get("/auth/login", follow_redirects=False).headers["location"]
    assert parse_qs(urlsplit(location).query)["prompt"] == ["login select_account"]
    assert idp.state.end_sessions == []


def test_select_account_is_sent_only_when_the_provider_advertises_it(sqlite_dsn: str) -> None:
    from auth_oidc.support import open_browser
    from fw.testing import identity_provider

    with (
        identity_provider(advertise_select_account=False) as quiet,
        open_browser(quiet, sqlite_dsn) as (client, _),
    ):
        quiet.login_user("alice")
        client.login()
        client.logout()
        location = client.get("/auth/login", follow_redirects=False).headers["location"]
        assert parse_qs(urlsplit(location).query)["prompt"] == ["login"]


def test_global_logout_redirects_to_the_end_session_endpoint_and_back(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser(oidc={"logout_scope": "global"})
    idp.login_user("alice")
    client.login()
    response = client.logout()
    assert response.status_code == 303
    target = urlsplit(response.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == f"{idp.issuer}/end_session"
    query = parse_qs(target.query)
    assert query == {"client_id": [idp.client_id], "post_logout_redirect_uri": ["http://localhost:8000/"]}
    back = client.get(response.headers["location"], follow_redirects=False)
    assert back.status_code == 302 and back.headers["location"] == "http://localhost:8000/"
    assert client.get("/me").json() == {"signed_in": False}


# Each test opens its own browser and signs in (two lines) so it reads whole; the outcomes differ.
def test_a_logout_form_escalates_to_global_only_when_allowed(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    assert client.logout(data={"scope": "global"}).headers["location"] == "/"
    permissive, _ = browser(oidc={"allow_global_logout_request": True})
    permissive.login("alice")
    escalated = permissive.logout(data={"scope": "global"})
    assert escalated.headers["location"].startswith(f"{idp.issuer}/end_session?")


def test_a_logout_form_cannot_narrow_global_logout(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser(oidc={"logout_scope": "global"})
    client.login("alice")
    response = client.logout(data={"scope": "reconfirm"})
    assert response.headers["location"].startswith(f"{idp.issuer}/end_session?")


def test_loopback_origins_each_get_their_own_redirect_uri(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    idp.login_user("alice")
    for origin in ("http://127.0.0.1:8000", "http://app.localhost:9000", "http://[::1]:8000"):
        landed = client.get(f"{origin}/auth/login?next=/me", follow_redirects=True)
        assert str(landed.url) == f"{origin}/me"
        assert landed.json()["signed_in"] is True
        assert idp.state.authorizations[-1]["redirect_uri"] == f"{origin}/auth/callback"


def test_a_request_derived_redirect_url_needs_a_loopback_host(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    response = client.get("http://app.example.com/auth/login", follow_redirects=False)
    assert response.status_code == 400
    assert response.json()["code"] == "login_unavailable"


def test_a_configured_redirect_url_is_sent_exactly(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser(oidc={"redirect_url": "http://localhost:8000/auth/callback"})
    location = client.get("/auth/login", follow_redirects=False).headers["location"]
    assert parse_qs(urlsplit(location).query)["redirect_uri"] == ["http://localhost:8000/auth/callback"]


def test_request_authentication_reports_the_browser_session(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    assert client.get("/who").json() == {"method": None}
    client.login("alice")
    me = client.get("/me").json()
    assert client.get("/who").json() == {
        "method": "session",
        "account_id": me["account_id"],
        "issuer": idp.issuer,
        "subject": "alice",
        "principal_is_user": True,
    }
