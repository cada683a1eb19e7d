"""The allow-list behind admission ``registered``."""

from __future__ import annotations

from fw.auth.stores import AuthStore

from .conftest import unique


async def test_an_entry_is_listed_for_its_issuer_and_claim_only(auth_store: AuthStore) -> None:
    allowlist, issuer = auth_store.allowlist, unique("https://issuer")
    await allowlist.add(issuer, "email", "u1@x.test", "invited")
    assert await allowlist.contains_any(issuer, [("sub", "u1"), ("email", "u1@x.test")])
    assert not await allowlist.contains_any(issuer, [("sub", "u1@x.test")])
    assert not await allowlist.contains_any(unique("https://other"), [("email", "u1@x.test")])


async def test_adding_twice_is_harmless_and_removing_says_whether_it_existed(auth_store: AuthStore) -> None:
    allowlist, issuer = auth_store.allowlist, unique("https://issuer")
    await allowlist.add(issuer, "sub", "carol")
    await allowlist.add(issuer, "sub", "carol", "twice")
    assert await allowlist.remove(issuer, "sub", "carol")
    assert not await allowlist.contains_any(issuer, [("sub", "carol")])
    assert not await allowlist.remove(issuer, "sub", "carol")


async def test_no_pairs_are_never_listed(auth_store: AuthStore) -> None:
    assert not await auth_store.allowlist.contains_any(unique("https://issuer"), [])
