"""``passkey_only`` end to end: bootstrap, enrollment, sign-in, recovery, registration policies.
A signed-in person adding passkeys: test_passkey_only_adding_passkeys.py."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import fw
from auth_passkey_modes.support import PATH, PasskeyBrowser, another_browser, passkey_only
from fw.testing.passkeys import SoftAuthenticator


def enrol(browser: PasskeyBrowser, login_id: str = "alice", **create: object) -> str:
    """Issue a bootstrap credential, redeem it and register a first passkey; the credential ID."""
    credential = browser.call(fw.auth.issue_bootstrap_credential, login_id)
    redeemed = browser.bootstrap(login_id, credential.secret)
    assert redeemed.status_code == 200, redeemed.text
    registered = browser.register(**create)
    assert registered.status_code == 200, registered.text
    return str(registered.json()["credential_id"])


def test_a_bootstrap_credential_enrols_a_passkey_and_signs_the_person_in(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
        assert credential.login_id == "alice" and len(credential.secret) >= 40
        assert credential.expires_at - datetime.now(UTC) > timedelta(hours=71)
        redeemed = browser.bootstrap("alice", credential.secret)
        assert redeemed.status_code == 200
        assert redeemed.json() == {"next": f"{PATH}/register/begin"}
        assert redeemed.headers["cache-control"] == "no-store"
        ticket = redeemed.headers["set-cookie"]
        assert "fw_enroll=" in ticket and f"Path={PATH}" in ticket
        assert "HttpOnly" in ticket and "SameSite=Strict" in ticket
        assert browser.me() == {"signed_in": False}  # a ticket is not a session
        registered = browser.register()
        assert registered.status_code == 200
        me = browser.me()
        assert me["signed_in"] is True and me["issuer"] == "passkey"
        assert browser.client.get("/method").json() == {"method": "passkey"}
        [listed] = browser.call(fw.auth.passkeys, me["account_id"])
        assert listed.credential_id == registered.json()["credential_id"]
        assert listed.backed_up is False and listed.last_used_at is None


def test_a_passkey_signs_in_again_after_logout_and_lands_where_asked(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser)
        account = browser.me()["account_id"]
        assert browser.logout().status_code == 303
        assert browser.me() == {"signed_in": False}
        assert browser.client.get("/private/page").status_code == 401
        begun = browser.post("/login/begin?next=/private/page")
        options = begun.json()
        assert set(options) >= {"challenge", "rpId", "timeout", "userVerification"}
        assert "allowCredentials" not in options and options["rpId"] == "localhost"
        signing_in = datetime.now(UTC).replace(microsecond=0)  # a store may keep whole seconds
        finished = browser.post("/login/finish", browser.authenticator.get(options))
        assert finished.status_code == 200, finished.text
        signed_in = datetime.now(UTC)
        assert finished.json() == {"landing": "/private/page"}
        assert finished.headers["cache-control"] == "no-store"
        assert browser.me()["account_id"] == account
        assert browser.client.get("/private/page").status_code == 200
        [listed] = browser.call(fw.auth.passkeys, account)
        assert listed.last_used_at is not None and signing_in <= listed.last_used_at <= signed_in


def test_sign_in_rotates_the_session_cookie(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser)
        before = browser.client.cookies.get("fw_session")
        assert browser.login().status_code == 200
        after = browser.client.cookies.get("fw_session")
        assert before and after and before != after
        planted = another_browser(browser)
        planted.client.cookies.set("fw_session", before)
        assert planted.me() == {"signed_in": False}
        assert browser.me()["signed_in"] is True


@pytest.mark.parametrize("algorithm", ["ES256", "RS256"])
@pytest.mark.parametrize("attestation", ["none", "packed"])
def test_es256_and_rs256_passkeys_with_none_and_packed_attestation_enrol_and_sign_in(
    dsn: str, algorithm: str, attestation: str
) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser, algorithm=algorithm, attestation=attestation)
        browser.logout()
        assert browser.login().status_code == 200
        assert browser.login().status_code == 200  # the counter moves up each time


def test_a_synced_passkey_keeps_a_sign_count_of_zero_and_is_listed_as_backed_up(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser, synced=True)
        for _ in range(3):
            assert browser.login().status_code == 200
        assert browser.authenticator.credentials[0].sign_count == 0
        [listed] = browser.call(fw.auth.passkeys, browser.me()["account_id"])
        assert listed.backed_up is True


def test_a_removed_passkey_is_refused_at_sign_in(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        credential_id = enrol(browser)
        account = browser.me()["account_id"]
        assert browser.call(fw.auth.remove_passkey, account, credential_id) is True
        assert browser.call(fw.auth.remove_passkey, account, credential_id) is False
        browser.logout()
        refused = browser.login()
        assert refused.status_code == 403 and refused.json()["code"] == "passkey_rejected"
        assert browser.me() == {"signed_in": False}


def test_a_suspended_account_cannot_sign_in_by_passkey(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser)
        account = browser.me()["account_id"]
        browser.logout()
        fw.auth.set_account_lookup(lambda account_id: fw.auth.Account(account_id, active=False))
        refused = browser.login()
        assert refused.status_code == 403 and refused.json()["code"] == "not_admitted"
        assert browser.me() == {"signed_in": False}
        fw.auth.set_account_lookup(None)
        assert browser.login().status_code == 200
        assert browser.me()["account_id"] == account


def test_an_administrator_reissues_a_recovery_credential_for_a_lost_passkey(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        enrol(browser)
        account = browser.me()["account_id"]
        browser.logout()
        with pytest.raises(LookupError):
            browser.call(fw.auth.issue_bootstrap_credential, "bob", purpose="recovery_passkey")
        recovery = browser.call(fw.auth.issue_bootstrap_credential, "alice", purpose="recovery_passkey")
        phone = PasskeyBrowser(browser.client, SoftAuthenticator(browser.authenticator.origin))
        assert phone.bootstrap("alice", recovery.secret).status_code == 200
        assert phone.register().status_code == 200
        assert phone.me()["account_id"] == account
        assert len(browser.call(fw.auth.passkeys, account)) == 2


def test_a_second_registration_on_one_ticket_is_refused(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
        assert browser.bootstrap("alice", credential.secret).status_code == 200
        first = browser.begin_registration()
        second_browser = another_browser(browser)
        # The ticket cookie is copied to a second browser before the first registration finishes.
        for name in ("fw_enroll",):
            second_browser.client.cookies.set(name, browser.client.cookies[name], path=PATH)
        second = second_browser.begin_registration()
        assert browser.post("/register/finish", browser.authenticator.create(first)).status_code == 200
        other = SoftAuthenticator(browser.authenticator.origin)
        refused = second_browser.post("/register/finish", other.create(second))
        assert refused.status_code == 403
        account = browser.me()["account_id"]
        assert len(browser.call(fw.auth.passkeys, account)) == 1
        assert second_browser.me() == {"signed_in": False}


def test_an_expired_enrollment_ticket_registers_nothing(dsn: str) -> None:
    with passkey_only(dsn, bootstrap={"enrollment_ttl": "1s"}) as browser:
        credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
        assert browser.bootstrap("alice", credential.secret).status_code == 200
        options = browser.begin_registration()
        time.sleep(1.2)
        refused = browser.post("/register/finish", browser.authenticator.create(options))
        assert refused.status_code in (400, 403)
        assert browser.post("/register/begin").status_code == 401
        assert browser.me() == {"signed_in": False}


def test_every_bootstrap_failure_is_the_same_403(dsn: str) -> None:
    with passkey_only(dsn, bootstrap={"max_attempts": 2}) as browser:
        credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
        answers = [
            browser.bootstrap("nobody", credential.secret),  # unknown login ID
            browser.bootstrap("alice", "wrong"),  # wrong secret
            browser.bootstrap("alice", "wrong again"),  # attempts now exhausted
            browser.bootstrap("alice", credential.secret),  # the right secret, too late
        ]
        assert {a.status_code for a in answers} == {403}
        assert len({a.text for a in answers}) == 1
        assert browser.post("/register/begin").status_code == 401


def test_a_redeemed_bootstrap_secret_cannot_be_redeemed_again(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
        assert browser.bootstrap("alice", credential.secret).status_code == 200
        again = another_browser(browser).bootstrap("alice", credential.secret)
        assert again.status_code == 403 and again.json()["code"] == "bootstrap_refused"
        enrol_answer = browser.register()
        assert enrol_answer.status_code == 200
        spent = another_browser(browser).bootstrap("alice", credential.secret)
        assert spent.status_code == 403


def test_an_expired_bootstrap_credential_is_refused(dsn: str) -> None:
    with passkey_only(dsn, bootstrap={"issue_ttl": "1s"}) as browser:
        credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
        time.sleep(1.2)
        assert browser.bootstrap("alice", credential.secret).status_code == 403


def test_registration_policy_disabled_issues_no_credential_for_a_new_account(dsn: str) -> None:
    with (
        passkey_only(dsn, registration={"policy": "disabled"}) as browser,
        pytest.raises(RuntimeError, match="disabled"),
    ):
        browser.call(fw.auth.issue_bootstrap_credential, "alice")


def test_anyone_without_a_session_or_ticket_cannot_begin_a_registration(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        refused = browser.post("/register/begin")
        assert refused.status_code == 401 and refused.headers["cache-control"] == "no-store"


def test_bootstrap_credentials_exist_only_in_passkey_only(tmp_path: Path, dsn: str) -> None:
    import asyncio

    with pytest.raises(RuntimeError, match="passkey_only"):
        asyncio.run(fw.auth.issue_bootstrap_credential("alice"))


def test_the_browser_script_is_served_under_the_passkey_path(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        script = browser.client.get(f"{PATH}/passkey.js")
        assert script.status_code == 200
        assert script.headers["content-type"].startswith("text/javascript")
        assert b"fwPasskey" in script.content
