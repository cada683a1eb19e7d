"""Admission, the account seams, and the periodic account re-read."""

from __future__ import annotations

import asyncio
import time

import pytest

import fw
from auth_oidc.conftest import Build
from fw.auth import accounts, admission
from fw.auth.accounts import Account, Identity
from fw.devidp import DevUser
from fw.testing import TestIdentityProvider


def test_the_account_link_is_issuer_and_identity_claim_never_email(
    store_browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = store_browser()
    client.login("alice")
    first = client.get("/me").json()["account_id"]
    idp.add_user(DevUser("alice", "Alice Renamed", "new-address@example.test"))
    client.login("alice")
    again = client.get("/me").json()
    assert again["account_id"] == first
    assert again["display_name"] == "Alice Renamed"
    idp.add_user(DevUser("mallory", "Mallory", "new-address@example.test"))
    client.login("mallory")
    assert client.get("/me").json()["account_id"] != first


def test_a_different_identity_claim_links_by_that_claim(browser: Build, idp: TestIdentityProvider) -> None:
    idp.add_user(DevUser("u-1", "Emp", "e@example.test", {"employee_id": "E42"}))
    client, _ = browser(oidc={"identity_claim": "employee_id"})
    client.login("u-1")
    assert client.get("/me").json()["key"] == "E42"


def test_an_identity_without_the_identity_claim_is_refused(browser: Build) -> None:
    client, _ = browser(oidc={"identity_claim": "employee_id"})
    response = client.login("alice", allow_failure=True)
    assert response.status_code == 400
    assert client.get("/me").json() == {"signed_in": False}


def test_admission_claim_admits_only_matching_identities(browser: Build, idp: TestIdentityProvider) -> None:
    from fw.auth.settings import Claim

    idp.add_user(DevUser("staff", "Staff", "s@example.test", {"groups": ["staff", "x"]}))
    client, _ = browser(oidc={"admission": "claim", "claim": Claim("/groups", ["staff"], "any")})
    refused = client.login("alice", allow_failure=True)
    assert refused.status_code == 403 and refused.json()["code"] == "not_admitted"
    assert client.login("staff").status_code == 200
    assert client.get("/me").json()["signed_in"] is True


def test_admission_registered_reads_the_allow_list(store_browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = store_browser(oidc={"admission": "registered"})
    assert client.login("bob", allow_failure=True).status_code == 403
    # From a script, as an operator would: the configured store, not the running App's handle.
    asyncio.run(admission.allow(idp.issuer, "sub", "bob"))
    assert client.login("bob").status_code == 200
    assert client.get("/me").json()["key"] == "bob"


def test_admission_existing_admits_only_known_accounts(store_browser: Build) -> None:
    open_client, _ = store_browser()
    open_client.login("alice")
    client, _ = store_browser(oidc={"admission": "existing", "auto_provision": False})
    assert client.login("bob", allow_failure=True).status_code == 403
    assert client.login("alice").status_code == 200


def test_auto_provision_false_refuses_unknown_identities(browser: Build) -> None:
    client, _ = browser(oidc={"auto_provision": False})
    response = client.login("alice", allow_failure=True)
    assert response.status_code == 403


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_application_resolver_maps_identities_to_its_accounts(browser: Build, kind: str) -> None:
    seen: list[Identity] = []

    def resolve(identity: Identity) -> Account | None:
        seen.append(identity)
        if identity.value == "bob":
            return None
        return Account(f"app-{identity.value}", "From the app", "app@example.test")

    async def resolve_async(identity: Identity) -> Account | None:
        return resolve(identity)

    fw.auth.set_account_resolver(resolve if kind == "sync" else resolve_async)
    client, _ = browser()
    client.login("alice")
    me = client.get("/me").json()
    assert me["account_id"] == "app-alice"
    assert me["display_name"] == "From the app"
    assert (
        seen[0].claim == "sub" and seen[0].create is True and seen[0].claims["email"] == "alice@example.test"
    )
    assert client.login("bob", allow_failure=True).status_code == 403


def test_a_suspended_account_loses_its_session_at_the_next_reread(browser: Build) -> None:
    state = {"active": True}
    fw.auth.set_account_resolver(lambda identity: Account("acct-1", "A", "a@example.test"))
    fw.auth.set_account_lookup(lambda account_id: Account(account_id, "A", "a@example.test", state["active"]))
    client, _ = browser()
    client.login("alice")
    assert client.get("/me").json()["signed_in"] is True
    state["active"] = False
    assert client.get("/me").json()["signed_in"] is True  # read less than 30 s ago: not re-read yet
    fw.auth.forget_account("acct-1")
    assert client.get("/me").json() == {"signed_in": False}
    state["active"] = True
    fw.auth.forget_account("acct-1")
    assert client.get("/me").json() == {"signed_in": False}  # the session was destroyed, not paused


def test_the_account_is_reread_at_most_once_per_30_seconds(
    browser: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    fw.auth.set_account_resolver(lambda identity: Account("acct-2"))

    def lookup(account_id: str) -> Account:
        reads.append(account_id)
        return Account(account_id)

    fw.auth.set_account_lookup(lookup)
    client, _ = browser()
    client.login("alice")
    for _ in range(5):
        client.get("/me")
    assert reads == []
    clock = time.monotonic() + 31
    monkeypatch.setattr(accounts.time, "monotonic", lambda: clock)
    client.get("/me")
    client.get("/me")
    assert reads == ["acct-2"]


def test_a_deleted_account_loses_its_session(browser: Build) -> None:
    fw.auth.set_account_resolver(lambda identity: Account("gone"))
    fw.auth.set_account_lookup(lambda account_id: None)
    client, _ = browser()
    client.login("alice")
    fw.auth.forget_account("gone")
    assert client.get("/me").json() == {"signed_in": False}


def test_an_account_store_failure_during_the_reread_is_a_503(browser: Build) -> None:
    fw.auth.set_account_resolver(lambda identity: Account("flaky"))

    def lookup(account_id: str) -> Account:
        raise ConnectionError("store down")

    fw.auth.set_account_lookup(lookup)
    client, _ = browser()
    client.login("alice")
    fw.auth.forget_account("flaky")
    response = client.get("/me")
    assert response.status_code == 503
    assert "store down" not in response.text


def test_an_account_store_failure_during_login_is_a_503(browser: Build) -> None:
    def resolve(identity: Identity) -> Account:
        raise TimeoutError("slow")

    fw.auth.set_account_resolver(resolve)
    client, _ = browser()
    assert client.login("alice", allow_failure=True).status_code == 503
    assert client.get("/me").json() == {"signed_in": False}


def test_the_default_account_table_suspends_accounts(store_browser: Build) -> None:
    client, _ = store_browser()
    client.login("alice")
    account_id = client.get("/me").json()["account_id"]

    assert asyncio.run(accounts.set_account_active(account_id, False))  # from a script: the configured store
    assert client.get("/me").json() == {"signed_in": False}
    assert client.login("alice", allow_failure=True).status_code == 403


def test_an_app_given_its_own_resolver_uses_it_while_other_apps_keep_the_process_default(
    browser: Build,
) -> None:
    fw.auth.set_account_resolver(lambda identity: Account("from-the-default"))
    first, first_extension = browser()
    second, _ = browser()
    fw.auth.set_account_resolver(lambda identity: Account("its-own"), app=first_extension.app)
    first.login("alice")
    second.login("alice")
    assert first.get("/me").json()["account_id"] == "its-own"
    assert second.get("/me").json()["account_id"] == "from-the-default"
    fw.auth.set_account_resolver(None, app=first_extension.app)  # back to the process default
    first.login("alice")
    assert first.get("/me").json()["account_id"] == "from-the-default"


def test_an_app_given_its_own_lookup_rereads_through_it(browser: Build) -> None:
    fw.auth.set_account_resolver(lambda identity: Account("acct-3"))
    fw.auth.set_account_lookup(lambda account_id: Account(account_id))
    first, first_extension = browser()
    second, _ = browser()
    fw.auth.set_account_lookup(lambda account_id: None, app=first_extension.app)  # deleted, for this App
    first.login("alice")
    second.login("alice")
    fw.auth.forget_account("acct-3")
    assert first.get("/me").json() == {"signed_in": False}
    assert second.get("/me").json()["signed_in"] is True


def test_forget_account_reaches_every_app_or_only_the_one_named() -> None:
    one, other = fw.App(), fw.App()
    first, second = accounts.AccountSeams(one), accounts.AccountSeams(other)
    for seams in (first, second):
        seams.mark_read("acct")
    fw.auth.forget_account("acct", app=one)
    assert first.reread_due("acct") and not second.reread_due("acct")
    first.mark_read("acct")
    fw.auth.forget_account("acct")
    assert first.reread_due("acct") and second.reread_due("acct")


def test_each_app_keeps_its_own_reread_clock() -> None:
    first, second = accounts.AccountSeams(fw.App()), accounts.AccountSeams(fw.App())
    first.mark_read("acct")
    assert not first.reread_due("acct")
    assert second.reread_due("acct")
