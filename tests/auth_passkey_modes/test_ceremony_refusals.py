"""Every refusal a ceremony makes: 400 without a matching begin, one 403 shape for anything that
does not verify, the endpoint guards (405, 415, 413, a foreign Origin), and nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

import fw
from auth_passkey_modes.support import ORIGIN, PATH, PasskeyBrowser, another_browser, passkey_only
from auth_passkey_modes.test_passkey_only_flow import enrol
from fw.testing.passkeys import SoftAuthenticator


def signed_out(browser: PasskeyBrowser) -> PasskeyBrowser:
    enrol(browser)
    browser.logout()
    return browser


def test_a_replayed_sign_in_answer_finds_no_ceremony(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        signed_out(browser)
        answer = browser.authenticator.get(browser.begin_login())
        assert browser.post("/login/finish", answer).status_code == 200
        browser.logout()
        replayed = browser.post("/login/finish", answer)
        assert replayed.status_code == 400
        assert browser.me() == {"signed_in": False}


def test_a_finish_from_another_browser_is_refused(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        signed_out(browser)
        answer = browser.authenticator.get(browser.begin_login())
        thief = another_browser(browser)
        assert thief.post("/login/finish", answer).status_code == 400  # no ceremony of its own
        thief.begin_login()  # its own ceremony has another challenge
        stolen = thief.post("/login/finish", answer)
        assert stolen.status_code == 403 and stolen.json()["code"] == "passkey_rejected"
        assert thief.me() == {"signed_in": False}


@pytest.mark.parametrize(
    "spoil",
    [
        {"origin": "http://evil.localhost"},
        {"rp_id": "example.com"},
        {"user_verified": False},
        {"sign_count": 0},
        {"user_handle": b"someone else"},
    ],
    ids=["wrong origin", "wrong rp id", "uv missing", "counter backwards", "foreign user handle"],
)
def test_a_sign_in_answer_that_does_not_verify_is_one_403_and_signs_nobody_in(
    dsn: str, spoil: dict[str, Any]
) -> None:
    with passkey_only(dsn) as browser:
        signed_out(browser)
        assert browser.login().status_code == 200  # the stored count is now above 0
        browser.logout()
        refused = browser.login(**spoil)
        assert refused.status_code == 403
        assert refused.json()["code"] == "passkey_rejected"
        assert refused.json()["detail"] == "The passkey could not be verified."
        assert browser.me() == {"signed_in": False}


def test_an_unknown_credential_is_refused_like_every_other_failure(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        signed_out(browser)
        stranger = SoftAuthenticator(ORIGIN)
        stranger.create(
            {
                "challenge": "AAAA",
                "rp": {"id": "localhost", "name": "x"},
                "user": {"id": "AQ", "name": "x", "displayName": "x"},
            }
        )
        refused = PasskeyBrowser(browser.client, stranger).login()
        assert refused.status_code == 403 and refused.json()["code"] == "passkey_rejected"


@pytest.mark.parametrize(
    "spoil",
    [{"origin": "http://evil.localhost"}, {"rp_id": "example.com"}, {"user_verified": False}],
    ids=["wrong origin", "wrong rp id", "uv missing"],
)
def test_a_registration_that_does_not_verify_stores_nothing(dsn: str, spoil: dict[str, Any]) -> None:
    with passkey_only(dsn) as browser:
        credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
        browser.bootstrap("alice", credential.secret)
        refused = browser.register(**spoil)
        assert refused.status_code == 403
        assert browser.me() == {"signed_in": False}
        assert browser.register().status_code == 200  # the ticket still permits its one registration
        assert len(browser.call(fw.auth.passkeys, browser.me()["account_id"])) == 1


def test_user_verification_preferred_accepts_an_answer_without_it(dsn: str) -> None:
    with passkey_only(dsn, passkey={"user_verification": "preferred"}) as browser:
        enrol(browser, user_verified=False)
        browser.logout()
        assert browser.login(user_verified=False).status_code == 200


def test_a_page_of_another_origin_cannot_run_a_ceremony(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        for origin in ("http://evil.localhost", "null"):
            refused = browser.post("/login/begin", headers={"origin": origin})
            assert refused.status_code == 403 and refused.headers["cache-control"] == "no-store"
        no_origin = browser.client.post(f"{PATH}/login/begin")
        assert no_origin.status_code == 403


def test_the_ceremony_endpoints_accept_only_post(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        for suffix in ("/login/begin", "/login/finish", "/register/begin", "/register/finish", "/bootstrap"):
            assert browser.client.get(PATH + suffix).status_code == 405


def test_a_body_that_is_not_json_is_415_and_a_large_one_413(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        form = browser.post("/login/finish", content=b"a=b", headers={"content-type": "text/plain"})
        assert form.status_code == 415
        large = browser.post(
            "/login/finish", content=b"{" + b" " * 70000 + b"}", headers={"content-type": "application/json"}
        )
        assert large.status_code == 413
        begin = browser.post("/login/begin", {"unexpected": 1})
        assert begin.status_code == 400


def test_the_ceremony_cookie_is_bound_to_the_passkey_path_and_strict(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        begun = browser.post("/login/begin")
        cookie = begun.headers["set-cookie"]
        assert cookie.startswith("fw_passkey=")
        for part in (f"Path={PATH}", "HttpOnly", "SameSite=Strict", "Max-Age=300"):
            assert part in cookie
