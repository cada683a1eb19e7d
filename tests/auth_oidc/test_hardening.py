"""What an attacker tries against browser login, and what happens when the provider misbehaves."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from auth_oidc.conftest import Build
from fw.auth.redirects import safe_return_path
from fw.testing import BrowserClient, TestIdentityProvider


def signed_in(client: BrowserClient) -> bool:
    return bool(client.get("/me").json()["signed_in"])


def callback_url(client: BrowserClient, path: str = "/auth/login") -> str:
    authorize = client.get(path, follow_redirects=False).headers["location"]
    return str(client.get(authorize, follow_redirects=False).headers["location"])


# Open redirects: tricks beyond the plain list of the redirect tests.
@pytest.mark.parametrize(
    "path",
    [
        "/a//b",
        "/.//evil.example",
        "/./x",
        "/x/../y",
        "/%2e%2e//evil.example",
        "/%2E/%2E//evil.example",
        "/%2e%2e%2f%2fevil.example",
        "/x/%2e%2e/%2f%2fevil.example",
        "/\x7f/evil.example",
        "/%7F/evil.example",
    ],
)
def test_paths_that_could_normalize_into_another_origin_are_refused(path: str) -> None:
    assert safe_return_path(path) is None


@pytest.mark.parametrize("path", ["/a/", "/a/b/", "/search?q=//x&r=/./", "/caf\u00e9", "/a#/./b"])
def test_ordinary_return_paths_survive_the_stricter_rules(path: str) -> None:
    assert safe_return_path(path) == path


@pytest.mark.parametrize("trick", ["//evil.example", "/\\evil.example", "/%2F%2Fevil.example", "/.//evil"])
def test_an_unsafe_next_never_reaches_the_location_header(
    browser: Build, idp: TestIdentityProvider, trick: str
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    landed = client.get(
        callback_url(client, f"/auth/login?{urlencode({'next': trick})}"), follow_redirects=False
    )
    assert landed.status_code == 303
    assert landed.headers["location"] == "/"


# Logout and cross-origin requests.
@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({"Origin": "null"}, True),
        ({"Origin": "http://localhost:8001"}, True),
        ({"Origin": "https://localhost:8000"}, True),
        ({"Origin": "http://evil.localhost:8000"}, True),
        ({"Referer": "https://evil.example/page"}, True),
        ({"Referer": "http://localhost:8000.evil.example/"}, True),
        ({"Sec-Fetch-Site": "same-site"}, True),
        ({"Sec-Fetch-Site": "cross-site", "Origin": "http://localhost:8000"}, True),
        ({"Origin": "http://LOCALHOST:8000"}, False),
        ({"Origin": "http://localhost:8000", "Sec-Fetch-Site": "same-origin"}, False),
        ({"Referer": "http://localhost:8000/account"}, False),
        ({}, False),  # no browser hint: the SameSite=Lax cookie is what a cross-site form lacks
    ],
)
def test_logout_refuses_every_sign_of_another_origin(
    browser: Build, idp: TestIdentityProvider, headers: dict[str, str], refused: bool
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    response = client.post("/auth/logout", headers=headers, follow_redirects=False)
    if refused:
        assert response.status_code == 403
        assert response.json()["code"] == "cross_origin"
        assert signed_in(client)
    else:
        assert response.status_code == 303
        assert not signed_in(client)


def test_logout_with_an_unreadable_form_still_ends_the_session(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    response = client.post(
        "/auth/logout",
        content=b"--x\r\nbroken",
        headers={"Content-Type": "multipart/form-data; boundary=x", "Origin": "http://localhost:8000"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert not signed_in(client)


def test_head_on_a_protected_path_goes_through_login_without_a_body(browser: Build) -> None:
    client, _ = browser()
    response = client.head("/private/report?x=1", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/login?next=%2Fprivate%2Freport%3Fx%3D1"
    assert response.content == b""


def test_head_on_a_protected_path_with_a_session_reaches_the_handler(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    assert client.head("/private/report").status_code == 200


# Cookies per origin.
def test_cookies_are_secure_outside_plain_http_loopback(idp: TestIdentityProvider, sqlite_dsn: str) -> None:
    from auth_oidc.support import open_browser

    configured = {"redirect_url": "https://app.example.test/auth/callback"}
    with open_browser(idp, sqlite_dsn, base_url="https://app.example.test", oidc=configured) as (client, _):
        header = client.get("/auth/login", follow_redirects=False).headers["set-cookie"]
        assert header.startswith("fw_login=") and "; Secure" in header and "HttpOnly" in header
        loopback = client.get("http://localhost:8000/auth/login", follow_redirects=False).headers[
            "set-cookie"
        ]
        assert "Secure" not in loopback


# What the callback does with the provider's answer.
def test_an_error_response_with_a_foreign_state_is_a_state_mismatch(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    genuine = callback_url(client)
    forged = client.get("/auth/callback?error=access_denied&state=forged", follow_redirects=False)
    assert forged.status_code == 400 and "state mismatch" in forged.json()["detail"]
    assert client.get(genuine, follow_redirects=False).status_code == 303


@pytest.mark.parametrize(
    ("error", "status"),
    [("access_denied", 403), ("login_required", 400), ("server_error", 400), ("<script>x" * 20, 400)],
)
def test_a_provider_error_is_a_clear_refusal_and_ends_the_attempt(
    browser: Build, idp: TestIdentityProvider, error: str, status: int
) -> None:
    client, _ = browser()
    authorize = client.get("/auth/login", follow_redirects=False).headers["location"]
    state = parse_qs(urlsplit(authorize).query)["state"][0]
    response = client.get(
        f"/auth/callback?{urlencode({'error': error, 'error_description': 'x', 'state': state})}",
        follow_redirects=False,
    )
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert len(response.json()["detail"]) < 200
    assert "fw_login" not in {c.name for c in client.cookies.jar}
    assert not signed_in(client)


def test_a_provider_that_goes_down_mid_login_is_a_503_not_a_crash(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    callback = callback_url(client)
    idp.running.stop()
    response = client.get(callback, follow_redirects=False)
    assert response.status_code == 503
    assert response.json()["code"] == "provider_unavailable"
    assert "Traceback" not in response.text
    assert not signed_in(client)


def test_a_token_endpoint_answering_garbage_is_a_503(
    browser: Build, idp: TestIdentityProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    from starlette.responses import HTMLResponse
    from starlette.routing import Route, request_response

    client, _ = browser()
    idp.login_user("alice")
    callback = callback_url(client)

    async def broken(request: object) -> HTMLResponse:
        return HTMLResponse("<h1>502 Bad Gateway</h1>", status_code=502)

    token = next(r for r in idp.running.provider.app.routes if isinstance(r, Route) and r.path == "/token")
    monkeypatch.setattr(token, "app", request_response(broken))
    response = client.get(callback, follow_redirects=False)
    assert response.status_code == 503
    assert not signed_in(client)


# The development provider answers loopback names only (DNS rebinding).
@pytest.mark.parametrize("host", ["evil.example", "localhost.evil.example", "127.0.0.1.nip.io"])
def test_the_development_provider_ignores_requests_for_foreign_host_names(
    idp: TestIdentityProvider, host: str
) -> None:
    url = f"{idp.issuer}/.well-known/openid-configuration"
    assert httpx.get(url, headers={"Host": host}).status_code == 421
    assert httpx.get(url).status_code == 200
