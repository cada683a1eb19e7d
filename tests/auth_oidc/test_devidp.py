"""The development provider speaks the real protocol and refuses to run where others could reach it."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from fw.devidp import NotLoopbackError, RunningProvider
from fw.testing import TestIdentityProvider


def challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def authorize(idp: TestIdentityProvider, verifier: str = "v" * 43, **extra: str) -> httpx2.Response:
    params = {
        "response_type": "code",
        "client_id": idp.client_id,
        "redirect_uri": "http://localhost:1/cb",
        "scope": "openid",
        "state": "s",
        "nonce": "n",
        "code_challenge": challenge(verifier),
        "code_challenge_method": "S256",
        **extra,
    }
    return httpx2.get(f"{idp.issuer}/authorize", params=params)


def code_from(response: httpx2.Response) -> str:
    return parse_qs(urlsplit(response.headers["location"]).query)["code"][0]


def redeem(
    idp: TestIdentityProvider, code: str, verifier: str = "v" * 43, secret: str | None = None
) -> httpx2.Response:
    return httpx2.post(
        f"{idp.issuer}/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": "http://localhost:1/cb",
            "code_verifier": verifier,
        },
        auth=(idp.client_id, secret if secret is not None else idp.client_secret),
    )


def test_discovery_names_every_endpoint(idp: TestIdentityProvider) -> None:
    document = httpx2.get(f"{idp.issuer}/.well-known/openid-configuration").json()
    assert document["issuer"] == idp.issuer
    for name in ("authorization", "token", "userinfo", "end_session", "device_authorization"):
        assert document[f"{name}_endpoint"].startswith(idp.issuer)
    assert httpx2.get(document["jwks_uri"]).json()["keys"][0]["kty"] == "RSA"
    assert "select_account" in document["prompt_values_supported"]


def test_without_a_preset_user_authorize_shows_a_picker_and_no_password(idp: TestIdentityProvider) -> None:
    page = authorize(idp)
    assert page.status_code == 200
    assert "Alice Example" in page.text and "password" not in page.text.lower().replace("no password", "")


def test_every_page_carries_the_development_banner_and_the_stylesheet(idp: TestIdentityProvider) -> None:
    for page in (authorize(idp), authorize(idp, client_id="nobody"), httpx2.get(f"{idp.issuer}/device")):
        assert "<header class='fw-devidp-banner' role='note'>" in page.text
        assert "Development identity provider — no password is checked" in page.text
        assert "<style>" in page.text and ".fw-devidp-banner {" in page.text


def test_the_code_flow_issues_tokens_and_userinfo(idp: TestIdentityProvider) -> None:
    idp.login_user("alice")
    tokens = redeem(idp, code_from(authorize(idp))).json()
    assert tokens["token_type"] == "Bearer" and tokens["id_token"]
    info = httpx2.get(f"{idp.issuer}/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert info.json()["sub"] == "alice"
    assert httpx2.get(f"{idp.issuer}/userinfo", headers={"Authorization": "Bearer forged"}).status_code == 401


def test_a_code_is_redeemed_once_and_only_with_its_verifier(idp: TestIdentityProvider) -> None:
    idp.login_user("alice")
    code = code_from(authorize(idp))
    wrong = redeem(idp, code, verifier="w" * 43)
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    code = code_from(authorize(idp))
    assert redeem(idp, code).status_code == 200
    assert redeem(idp, code).json()["error"] == "invalid_grant"


def test_a_wrong_client_secret_is_refused(idp: TestIdentityProvider) -> None:
    idp.login_user("alice")
    response = redeem(idp, code_from(authorize(idp)), secret="wrong")
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"


def test_refresh_tokens_are_issued_for_offline_access(idp: TestIdentityProvider) -> None:
    idp.login_user("alice")
    tokens = redeem(idp, code_from(authorize(idp, scope="openid offline_access"))).json()
    refreshed = httpx2.post(
        f"{idp.issuer}/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
        auth=(idp.client_id, idp.client_secret),
    )
    assert refreshed.status_code == 200 and refreshed.json()["id_token"]


def test_authorize_refuses_unregistered_redirects_and_missing_pkce(idp: TestIdentityProvider) -> None:
    assert authorize(idp, redirect_uri="https://evil.example/cb").status_code == 400
    idp.login_user("alice")
    no_pkce = authorize(idp, code_challenge_method="plain")
    assert parse_qs(urlsplit(no_pkce.headers["location"]).query)["error"] == ["invalid_request"]


def test_end_session_returns_only_to_local_uris(idp: TestIdentityProvider) -> None:
    ok = httpx2.get(
        f"{idp.issuer}/end_session",
        params={"client_id": idp.client_id, "post_logout_redirect_uri": "http://localhost:8000/"},
    )
    assert ok.status_code == 302 and ok.headers["location"] == "http://localhost:8000/"
    evil = httpx2.get(
        f"{idp.issuer}/end_session",
        params={"client_id": idp.client_id, "post_logout_redirect_uri": "https://evil.example/"},
    )
    assert evil.status_code == 400


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.com"])
def test_it_refuses_to_bind_beyond_loopback(host: str) -> None:
    with pytest.raises(NotLoopbackError):
        RunningProvider(host=host)


def test_it_refuses_to_run_outside_app_env_dev(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_ENV", "prod")
    with pytest.raises(NotLoopbackError, match="APP_ENV"):
        RunningProvider()


def test_fw_dev_serves_the_x_stand_in_on_x_paths_next_to_the_openid_provider() -> None:
    from fw.devidp import DevClient
    from fw.devidp.both import RunningDevProviders

    with RunningDevProviders(clients=[DevClient("fw-dev-app", "s3cret")]) as running:
        origin = running.origin
        assert httpx2.get(f"{origin}/.well-known/openid-configuration").json()["issuer"] == origin
        params = {
            "response_type": "code",
            "client_id": "fw-dev-app",
            "redirect_uri": "http://127.0.0.1:8000/auth/callback",
            "scope": "users.read tweet.read",
            "state": "s",
            "code_challenge": challenge("v" * 43),
            "code_challenge_method": "S256",
        }
        picker = httpx2.get(f"{origin}/i/oauth2/authorize", params=params)
        assert picker.status_code == 200 and "Authorize app" in picker.text and "@alice" in picker.text
        refused = httpx2.get(f"{origin}/2/users/me", headers={"Authorization": "Bearer forged"})
        assert refused.status_code == 401 and refused.json()["title"] == "Unauthorized"
        assert httpx2.get(f"{origin}/profile_images/1001.svg").status_code == 200
