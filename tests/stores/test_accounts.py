"""The account store: (issuer, claim value) links, names refreshed, suspension."""

from __future__ import annotations

import asyncio

from fw.auth.stores import AuthStore
from fw.auth.stores.records import AccountLink

from .conftest import unique


async def test_an_unknown_identity_is_created_only_when_creation_is_allowed(auth_store: AuthStore) -> None:
    accounts, issuer = auth_store.accounts, unique("https://issuer")
    refused = await accounts.resolve(AccountLink(issuer, "alice", "Alice", "a@x.test"), create=False)
    assert refused is None
    created = await accounts.resolve(AccountLink(issuer, "alice", "Alice", "a@x.test"), create=True)
    assert created is not None and created.active
    assert (created.issuer, created.claim_value, created.display_name, created.email) == (
        issuer,
        "alice",
        "Alice",
        "a@x.test",
    )
    again = await accounts.resolve(AccountLink(issuer, "alice", "Alice", "a@x.test"), create=False)
    assert again == created


async def test_the_link_is_issuer_and_claim_value_and_names_are_refreshed(auth_store: AuthStore) -> None:
    accounts, issuer = auth_store.accounts, unique("https://issuer")
    first = await accounts.resolve(AccountLink(issuer, "u1", "Old", "old@x.test"), create=True)
    renamed = await accounts.resolve(AccountLink(issuer, "u1", "New", "new@x.test"), create=True)
    assert first is not None and renamed is not None
    assert renamed.account_id == first.account_id
    assert (renamed.display_name, renamed.email) == ("New", "new@x.test")
    stored = await accounts.get(first.account_id)
    assert stored is not None and (stored.display_name, stored.email) == ("New", "new@x.test")
    elsewhere = await accounts.resolve(AccountLink(unique("https://other"), "u1", "", ""), create=True)
    same_email = await accounts.resolve(AccountLink(issuer, "u2", "", "new@x.test"), create=True)
    assert elsewhere is not None and same_email is not None
    assert len({first.account_id, elsewhere.account_id, same_email.account_id}) == 3


async def test_an_unknown_account_id_is_none(auth_store: AuthStore) -> None:
    assert await auth_store.accounts.get(unique("missing")) is None


async def test_set_active_suspends_and_reinstates_and_reports_unknown_accounts(auth_store: AuthStore) -> None:
    accounts = auth_store.accounts
    account = await accounts.resolve(AccountLink(unique("https://issuer"), "s", "", ""), create=True)
    assert account is not None
    assert await accounts.set_active(account.account_id, False)
    suspended = await accounts.get(account.account_id)
    assert suspended is not None and not suspended.active
    assert await accounts.set_active(account.account_id, True)
    reinstated = await accounts.get(account.account_id)
    assert reinstated is not None and reinstated.active
    assert not await accounts.set_active(unique("missing"), False)


async def test_an_account_created_inactive_stays_inactive_until_activated(auth_store: AuthStore) -> None:
    accounts = auth_store.accounts
    account = await accounts.resolve(
        AccountLink(unique("https://issuer"), "pending", "", ""), create=True, active=False
    )
    assert account is not None and not account.active
    stored = await accounts.get(account.account_id)
    assert stored is not None and not stored.active


async def test_concurrent_first_sign_ins_of_one_identity_end_with_one_account(auth_store: AuthStore) -> None:
    accounts, issuer = auth_store.accounts, unique("https://issuer")
    found = await asyncio.gather(
        *(accounts.resolve(AccountLink(issuer, "racer", "", ""), create=True) for _ in range(5))
    )
    assert all(account is not None for account in found)
    assert len({account.account_id for account in found if account is not None}) == 1
