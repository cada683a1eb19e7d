"""Back-channel logout (OpenID Connect Back-Channel Logout 1.0) at ``auth.oidc.backchannel_logout_path``.

Logout tokens are signed here with the development provider's own key, so each test shapes
exactly the token it is about; the interop test (tests/interop) has a certified provider send
real ones.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest
from joserfc.jwk import RSAKey

from auth_oidc.conftest import Build
from auth_oidc.support import logout_claims, logout_token, session_settings
from fw import configuration
from fw.auth.oidc.backchannel import BACKCHANNEL_EVENT, check_logout_claims
from fw.auth.oidc.exchange import LEEWAY
from fw.auth.tokens import TokenRejected
from fw.errors import StartupError
from fw.testing import BrowserClient, TestIdentityProvider, configured

PATH = "/auth/backchannel-logout"
BACKCHANNEL = {"backchannel_logout_path": PATH}


def signed_in(client: BrowserClient) -> bool:
    return bool(client.get("/me").json()["signed_in"])


def post_logout(client: BrowserClient, token: str) -> Any:
    """POST as the provider does: a form body (the endpoint reads no cookie)."""
    return client.post(PATH, data={"logout_token": token})


def test_a_verified_logout_token_ends_every_session_of_its_subject_in_every_app(
    browser: Build, idp: TestIdentityProvider
) -> None:
    first, _ = browser(oidc=BACKCHANNEL)
    second, _ = browser(oidc=BACKCHANNEL)  # another app process on the same stores
    bob, _ = browser(oidc=BACKCHANNEL)
    first.login("alice")
    second.login("alice")
    bob.login("bob")
    assert signed_in(first) and signed_in(second) and signed_in(bob)
    answer = post_logout(first, logout_token(idp))
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    assert not signed_in(first)
    assert not signed_in(second)
    assert signed_in(bob)


def test_a_replayed_logout_token_is_refused_and_ends_nothing_more(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser(oidc=BACKCHANNEL)
    token = logout_token(idp)
    assert post_logout(client, token).status_code == 200
    client.login("alice")  # a new session after the logout
    replay = post_logout(client, token)
    assert replay.status_code == 400
    assert replay.json() == {"error": "invalid_request"}
    assert signed_in(client)


def _times(iat: int, exp: int) -> dict[str, Any]:
    """``iat`` and ``exp`` offsets from now, read when the test runs (not when the table is built)."""
    return {"claims": {"iat": iat, "exp": exp}, "relative": True}


BAD_TOKENS: dict[str, dict[str, Any]] = {
    "another issuer": {"claims": {"iss": "https://elsewhere.example"}},
    "another audience": {"claims": {"aud": "another-client"}},
    "no iat": {"claims": {"iat": None}},
    "an iat in the future": _times(3600, 3700),
    "an iat long ago": _times(-3600, 60),
    "an expired exp": _times(-300, -200),
    "no jti": {"claims": {"jti": None}},
    "no events": {"claims": {"events": None}},
    "events without the logout member": {"claims": {"events": {"http://example.com/other": {}}}},
    "an events member that is not an object": {"claims": {"events": {BACKCHANNEL_EVENT: "yes"}}},
    "neither sid nor sub": {"claims": {"sub": None}},
    "an empty sub": {"claims": {"sub": ""}},
    "a nonce (an ID token)": {"claims": {"nonce": "n-0S6_WzA2Mj"}},
    "another typ": {"header": {"typ": "JWT"}},
    "an at+jwt typ": {"header": {"typ": "at+jwt"}},
    "the none algorithm": {},
}


def _shaped(case: str) -> dict[str, Any]:
    shaped = {key: dict(value) for key, value in BAD_TOKENS[case].items() if key != "relative"}
    if BAD_TOKENS[case].get("relative"):
        now = int(time.time())
        shaped["claims"] = {name: now + offset for name, offset in shaped["claims"].items()}
    return shaped


@pytest.mark.parametrize("case", list(BAD_TOKENS))
def test_a_bad_logout_token_is_refused_and_the_session_survives(
    browser: Build, idp: TestIdentityProvider, case: str
) -> None:
    client, _ = browser(oidc=BACKCHANNEL)
    client.login("alice")
    token = _unsigned(idp) if case == "the none algorithm" else logout_token(idp, **_shaped(case))
    answer = post_logout(client, token)
    assert answer.status_code == 400, case
    assert answer.json() == {"error": "invalid_request"}
    assert signed_in(client), case


def _unsigned(idp: TestIdentityProvider) -> str:
    """A well-formed logout token with ``alg: none`` and no signature."""

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'logout+jwt'})}.{part(logout_claims(idp))}."


def test_a_logout_token_signed_with_a_key_the_provider_does_not_publish_is_refused(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser(oidc=BACKCHANNEL)
    client.login("alice")
    stranger = RSAKey.generate_key(2048, parameters={"kid": idp.running.provider.key.kid})
    assert post_logout(client, logout_token(idp, key=stranger)).status_code == 400
    assert signed_in(client)


def test_a_logout_token_for_a_sid_ends_no_session_of_another_sid(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser(oidc=BACKCHANNEL)
    client.login("alice")  # the development provider's ID tokens carry no sid
    answer = post_logout(client, logout_token(idp, claims={"sid": "another-provider-session"}))
    assert answer.status_code == 200  # the provider session is over; none of it was here
    assert signed_in(client)


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", b'{"logout_token": "x.y.z"}'),
        ("application/x-www-form-urlencoded", b"token=abc"),
        ("application/x-www-form-urlencoded", b"logout_token="),
        ("application/x-www-form-urlencoded", b"logout_token=a.b.c&logout_token=d.e.f"),
        ("application/x-www-form-urlencoded", b"logout_token=" + b"a" * 20000),
    ],
)
def test_a_request_without_one_form_encoded_logout_token_is_invalid(
    browser: Build, content_type: str, body: bytes
) -> None:
    client, _ = browser(oidc=BACKCHANNEL)
    answer = client.post(PATH, content=body, headers={"content-type": content_type})
    assert answer.status_code == 400
    assert answer.json() == {"error": "invalid_request"}


def test_the_endpoint_answers_post_only_and_is_never_behind_protection(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser(oidc=BACKCHANNEL, protection={"include": ["/"], "unauthenticated": "unauthorized"})
    assert client.get(PATH).status_code == 405
    assert post_logout(client, logout_token(idp)).status_code == 200


def test_without_the_setting_there_is_no_endpoint(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    assert post_logout(client, logout_token(idp)).status_code in (404, 405)


def test_cookie_sessions_cannot_be_combined_with_back_channel_logout(browser: Build) -> None:
    with pytest.raises(StartupError) as refused:
        browser(oidc=BACKCHANNEL, session=session_settings("cookie", secret="k" * 43))
    assert refused.value.key == "auth.oidc.backchannel_logout_path"
    assert "cookie sessions" in str(refused.value)


@pytest.mark.parametrize("path", ["backchannel", "/a//b", "/auth/logout", "/x?y=1"])
def test_a_path_that_is_not_its_own_root_relative_path_is_refused(browser: Build, path: str) -> None:
    with pytest.raises(StartupError) as refused:
        browser(oidc={"backchannel_logout_path": path})
    assert refused.value.key == "auth.oidc.backchannel_logout_path"


@pytest.mark.parametrize(
    ("redirect_url", "registered"),
    [
        ("https://app.example.com/auth/callback", "https://app.example.com/auth/backchannel-logout"),
        ("", "<app origin>/auth/backchannel-logout"),
    ],
)
def test_the_doctor_names_the_url_to_register_at_the_provider(redirect_url: str, registered: str) -> None:
    toml = f"""
[auth]
enabled = true
mode = "oidc_only"

[auth.oidc]
client_id = "my-app"
redirect_url = "{redirect_url}"
backchannel_logout_path = "{PATH}"
"""
    with configured(toml=toml, env={"APP_ENV": "dev"}):
        lines = configuration.doctor_report()
    assert (
        f"note: register {registered} as the back-channel logout URI (backchannel_logout_uri) "
        "of client my-app at the provider"
    ) in lines


def test_without_back_channel_logout_the_doctor_has_no_note() -> None:
    with configured(toml='[auth]\nenabled = true\nmode = "oidc_only"\n', env={"APP_ENV": "dev"}):
        assert not [line for line in configuration.doctor_report() if line.startswith("note:")]


def test_a_logout_token_is_expired_at_exactly_exp_plus_the_leeway_on_a_fixed_clock() -> None:
    now = 1_000_000.0
    claims = {
        "iss": "https://id.example",
        "aud": "app",
        "iat": now - 120,
        "exp": now - LEEWAY,  # the clock reads exactly exp + leeway
        "jti": "j1",
        "sub": "alice",
        "events": {BACKCHANNEL_EVENT: {}},
    }
    with pytest.raises(TokenRejected, match="expired"):
        check_logout_claims(claims, issuer="https://id.example", client_id="app", now=now)
    still = check_logout_claims(claims, issuer="https://id.example", client_id="app", now=now - 0.001)
    assert still.subject == "alice" and still.expires_at == now
