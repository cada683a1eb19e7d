"""``oidc_passkey``: the account from the provider, a passkey registered after a recent proof,
daily sign-in by passkey, and provider sign-in kept for recovery only under policy ``oidc``."""

from __future__ import annotations

from auth_oidc.support import logout_token

import fw
from auth_passkey_modes.support import age_the_proof, another_browser, oidc_passkey
from fw.auth.browser.user import User
from fw.testing import TestIdentityProvider


def test_a_provider_sign_in_registers_a_passkey_and_the_passkey_signs_in_daily(
    idp: TestIdentityProvider, dsn: str
) -> None:
    with oidc_passkey(idp, dsn) as (browser, client):
        assert browser.post("/register/begin").status_code == 401
        client.login("alice")
        account = browser.me()["account_id"]
        assert client.get("/method").json() == {"method": "oidc"}
        options = browser.begin_registration()
        assert {alg["alg"] for alg in options["pubKeyCredParams"]} == {-7, -257}
        assert options["excludeCredentials"] == []
        registered = browser.post("/register/finish", browser.authenticator.create(options))
        assert registered.status_code == 200, registered.text
        assert set(registered.json()) == {"credential_id"}
        browser.logout()
        assert browser.me() == {"signed_in": False}
        assert browser.login().status_code == 200
        assert browser.me()["account_id"] == account
        assert client.get("/method").json() == {"method": "passkey"}
        assert (
            browser.begin_registration()["excludeCredentials"][0]["id"] == registered.json()["credential_id"]
        )


def test_registering_a_passkey_needs_a_proof_at_most_five_minutes_old(
    idp: TestIdentityProvider, dsn: str
) -> None:
    with oidc_passkey(idp, dsn) as (browser, client):
        client.login("alice")
        age_the_proof(browser, 301)
        stale = browser.post("/register/begin")
        assert stale.status_code == 401 and stale.json()["code"] == "reauthentication_required"
        stepped_up = client.get("/auth/login?max_age=300&next=/me", follow_redirects=True)
        assert stepped_up.json()["signed_in"] is True  # a re-proof at the provider renews the proof
        assert browser.post("/register/begin").status_code == 200


def test_with_recovery_by_administrator_an_account_with_a_passkey_cannot_use_the_provider(
    idp: TestIdentityProvider, dsn: str
) -> None:
    with oidc_passkey(idp, dsn, recovery={"policy": "administrator"}) as (browser, client):
        client.login("alice")
        account = browser.me()["account_id"]
        credential_id = browser.register().json()["credential_id"]
        browser.logout()
        refused = client.login("alice", allow_failure=True)
        assert refused.status_code == 403 and refused.json()["code"] == "passkey_required"
        assert browser.call(fw.auth.remove_passkey, account, credential_id) is True
        client.login("alice")
        assert browser.me()["account_id"] == account


def test_with_recovery_by_the_provider_its_sign_in_stays_available(
    idp: TestIdentityProvider, dsn: str
) -> None:
    with oidc_passkey(idp, dsn) as (browser, client):
        client.login("alice")
        browser.register()
        browser.logout()
        client.login("alice")
        assert browser.me()["signed_in"] is True


def test_registration_policy_disabled_registers_no_passkey(idp: TestIdentityProvider, dsn: str) -> None:
    with oidc_passkey(idp, dsn, registration={"policy": "disabled"}) as (browser, client):
        client.login("alice")
        refused = browser.post("/register/begin")
        assert refused.status_code == 403 and refused.json()["code"] == "registration_disabled"


def test_bootstrap_credentials_are_refused_outside_passkey_only(idp: TestIdentityProvider, dsn: str) -> None:
    import pytest

    with oidc_passkey(idp, dsn) as (browser, _):
        with pytest.raises(RuntimeError, match="passkey_only"):
            browser.call(fw.auth.issue_bootstrap_credential, "alice")
        assert browser.post("/bootstrap", {"login_id": "a", "secret": "b"}).status_code in (404, 405)


def test_the_user_principal_says_how_the_session_was_proved() -> None:
    assert User("a", "", "", "i", "k").method == "oidc"
    assert User("a", "", "", "passkey", "a", method="passkey").method == "passkey"


def test_back_channel_logout_ends_a_provider_session_and_spares_a_passkey_one(
    idp: TestIdentityProvider, dsn: str
) -> None:
    path = "/auth/backchannel-logout"
    with oidc_passkey(idp, dsn, oidc={"backchannel_logout_path": path}) as (browser, client):
        client.login("alice")  # this browser's session comes from the provider
        options = browser.begin_registration()
        assert browser.post("/register/finish", browser.authenticator.create(options)).status_code == 200
        phone = another_browser(browser)
        assert phone.login().status_code == 200  # that one's from the passkey
        assert browser.me()["signed_in"] is True and phone.me()["signed_in"] is True
        assert client.post(path, data={"logout_token": logout_token(idp)}).status_code == 200
        assert browser.me() == {"signed_in": False}
        assert phone.me()["signed_in"] is True
