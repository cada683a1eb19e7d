"""Admission against the profile claims, as in OIDC: claim, registered, existing, auto_provision."""

from __future__ import annotations

import asyncio
from typing import Any

from auth_oauth.support import accounts
from fw.auth.accounts import Account
from fw.auth.stores.select import middleware_settings, open_auth_store
from fw.testing import TestOAuthProvider


def _sign_in(browser: Any, who: str, x: TestOAuthProvider, **changes: Any) -> tuple[int, dict[str, Any]]:
    x.login_user(who)
    client = browser(**changes)
    status = client.get("/auth/login", follow_redirects=True).status_code
    return status, client.get("/me").json()


def test_claim_admission_reads_the_renamed_profile_claims(browser: Any, x: TestOAuthProvider) -> None:
    claim = {"admission": "claim", "claim": {"path": "/preferred_username", "values": ["alice"]}}
    assert _sign_in(browser, "alice", x, oauth=claim)[1]["signed_in"]
    status, me = _sign_in(browser, "bob", x, oauth=claim)
    assert status == 403 and not me["signed_in"]


def test_registered_admission_reads_the_allow_list_under_the_provider(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    alice = x.profile("alice")["id"]

    async def allow() -> None:
        store = await open_auth_store("rdb", middleware_settings(sqlite_dsn), ["allowlist"])
        try:
            await store.allowlist.add("x", "sub", alice, "")
        finally:
            await store.close()

    asyncio.run(allow())
    registered = {"admission": "registered"}
    assert _sign_in(browser, "alice", x, oauth=registered)[1]["signed_in"]
    assert _sign_in(browser, "bob", x, oauth=registered)[0] == 403
    assert accounts(sqlite_dsn) == [("x", alice)]


def test_existing_admission_lets_in_only_accounts_the_resolver_knows(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    import fw

    alice = x.profile("alice")["id"]
    fw.auth.set_account_resolver(
        lambda identity: Account("acct-alice", "Alice") if identity.value == alice else None
    )
    existing = {"admission": "existing", "auto_provision": False}
    _, me = _sign_in(browser, "alice", x, oauth=existing)
    assert me["account_id"] == "acct-alice"
    assert _sign_in(browser, "bob", x, oauth=existing)[0] == 403


def test_without_auto_provision_an_unknown_profile_gets_no_account(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    status, me = _sign_in(browser, "alice", x, oauth={"auto_provision": False})
    assert status == 403 and not me["signed_in"] and accounts(sqlite_dsn) == []
