"""``passkey_only``: a signed-in person adds a passkey to their own account, under every
registration policy except ``disabled``, with a proof at most 5 minutes old (a passkey assertion:
the sign-in or a re-proof while signed in). Refused, replayed and malformed registrations store
nothing. The answers come from soft-fido2 authenticators, as a browser's would."""

from __future__ import annotations

from typing import Any

import pytest

import fw
from auth_passkey_modes.support import PasskeyBrowser, age_the_proof, another_browser, passkey_only
from auth_passkey_modes.test_bad_input import spoiled_registrations
from auth_passkey_modes.test_passkey_only_flow import enrol
from fw.testing.passkeys import SoftAuthenticator

#: The policy the spec recommends for closed systems: accounts come from an administrator only.
CLOSED = {"policy": "administrator"}


def a_second_authenticator(browser: PasskeyBrowser) -> PasskeyBrowser:
    """The same browser session answering with another authenticator (a laptop next to a phone)."""
    return PasskeyBrowser(browser.client, SoftAuthenticator(browser.authenticator.origin))


def stored(browser: PasskeyBrowser, account: str) -> list[str]:
    return [passkey.credential_id for passkey in browser.call(fw.auth.passkeys, account)]


@pytest.mark.parametrize("policy", ["administrator", "invite", "open"])
def test_a_signed_in_person_adds_a_second_passkey_lists_both_and_removes_one(dsn: str, policy: str) -> None:
    with passkey_only(dsn, registration={"policy": policy}) as phone:
        first = enrol(phone)
        account = phone.me()["account_id"]
        laptop = a_second_authenticator(phone)
        options = laptop.begin_registration()
        assert [excluded["id"] for excluded in options["excludeCredentials"]] == [first]
        added = laptop.post("/register/finish", laptop.authenticator.create(options))
        assert added.status_code == 200, added.text
        second = added.json()["credential_id"]
        assert stored(phone, account) == [first, second]
        assert phone.me()["account_id"] == account  # still the same session, nobody else signed in

        assert phone.call(fw.auth.remove_passkey, account, first) is True
        assert stored(phone, account) == [second]
        phone.logout()
        refused = phone.login()
        assert refused.status_code == 403 and refused.json()["code"] == "passkey_rejected"
        assert phone.me() == {"signed_in": False}
        assert laptop.login().status_code == 200  # another passkey is how this mode recovers
        assert laptop.me()["account_id"] == account


@pytest.mark.parametrize("policy", ["administrator", "invite"])
def test_adding_a_passkey_needs_a_proof_at_most_five_minutes_old_and_a_passkey_assertion_renews_it(
    dsn: str, policy: str
) -> None:
    with passkey_only(dsn, registration={"policy": policy}) as phone:
        enrol(phone)
        account = phone.me()["account_id"]
        age_the_proof(phone, 301)
        stale = phone.post("/register/begin")
        assert stale.status_code == 401 and stale.json()["code"] == "reauthentication_required"
        assert stale.headers["cache-control"] == "no-store"
        assert phone.login().status_code == 200  # a re-proof while signed in
        assert phone.me()["account_id"] == account
        assert a_second_authenticator(phone).register().status_code == 200
        assert len(stored(phone, account)) == 2


def test_a_proof_just_inside_five_minutes_still_adds_a_passkey(dsn: str) -> None:
    with passkey_only(dsn, registration=CLOSED) as phone:
        enrol(phone)
        age_the_proof(phone, 280)
        assert a_second_authenticator(phone).register().status_code == 200


def test_registration_policy_disabled_lets_no_signed_in_person_add_a_passkey(dsn: str) -> None:
    with passkey_only(dsn) as earlier:  # enrolled while the policy was still "invite"
        enrol(earlier)
        account = earlier.me()["account_id"]
        session = earlier.client.cookies["fw_session"]
    with passkey_only(dsn, registration={"policy": "disabled"}) as phone:
        phone.client.cookies.set("fw_session", session)
        assert phone.me()["account_id"] == account
        refused = phone.post("/register/begin")
        assert refused.status_code == 403 and refused.json()["code"] == "registration_disabled"
        assert len(stored(phone, account)) == 1


@pytest.mark.parametrize(
    "spoil",
    [{"origin": "http://evil.localhost"}, {"rp_id": "example.com"}, {"user_verified": False}],
    ids=["wrong origin", "wrong rp id", "uv missing"],
)
def test_a_signed_in_registration_that_does_not_verify_stores_nothing(
    dsn: str, spoil: dict[str, Any]
) -> None:
    with passkey_only(dsn, registration=CLOSED) as phone:
        enrol(phone)
        account = phone.me()["account_id"]
        laptop = a_second_authenticator(phone)
        refused = laptop.register(**spoil)
        assert refused.status_code == 403 and refused.json()["code"] == "passkey_rejected"
        assert len(stored(phone, account)) == 1
        assert phone.me()["account_id"] == account


def test_a_registration_begun_by_someone_signed_out_since_stores_nothing(dsn: str) -> None:
    with passkey_only(dsn, registration=CLOSED) as phone:
        enrol(phone)
        account = phone.me()["account_id"]
        laptop = a_second_authenticator(phone)
        answer = laptop.authenticator.create(laptop.begin_registration())
        phone.logout()
        refused = laptop.post("/register/finish", answer)
        assert refused.status_code in (400, 401), refused.text
        assert len(stored(phone, account)) == 1


def test_a_replayed_registration_stores_nothing(dsn: str) -> None:
    with passkey_only(dsn, registration=CLOSED) as phone:
        enrol(phone)
        account = phone.me()["account_id"]
        laptop = a_second_authenticator(phone)
        answer = laptop.authenticator.create(laptop.begin_registration())
        assert laptop.post("/register/finish", answer).status_code == 200
        assert len(stored(phone, account)) == 2
        again = laptop.post("/register/finish", answer)  # its ceremony is spent
        assert again.status_code == 400, again.text
        laptop.begin_registration()
        into_a_new_ceremony = laptop.post("/register/finish", answer)  # another challenge now
        assert into_a_new_ceremony.status_code == 403, into_a_new_ceremony.text
        thief = another_browser(phone)
        assert thief.post("/register/finish", answer).status_code == 400  # no ceremony of its own
        assert len(stored(phone, account)) == 2


# Each test enrols its own phone and second authenticator so it reads whole; the outcomes differ.
def test_malformed_registration_bodies_from_a_signed_in_person_are_400_and_store_nothing(dsn: str) -> None:
    with passkey_only(dsn, registration=CLOSED) as phone:
        enrol(phone)
        account = phone.me()["account_id"]
        laptop = a_second_authenticator(phone)
        for begin_body in ({"user": "mallory"}, [], "x"):
            refused = laptop.post("/register/begin", begin_body)
            assert refused.status_code == 400, refused.text
        not_json = laptop.post(
            "/register/begin", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert not_json.status_code == 400
        for spoiled in spoiled_registrations(laptop.authenticator.create(laptop.begin_registration())):
            refused = laptop.post("/register/finish", spoiled)
            assert refused.status_code == 400, refused.text
            assert refused.headers["content-type"].startswith("application/problem+json")
            laptop.begin_registration()
        assert len(stored(phone, account)) == 1
        assert phone.me()["account_id"] == account
