"""Zero-window step-up grants on every auth backend: used once, by its own account only, and of
concurrent redemptions exactly one succeeds (what makes confirmed(0) hold under concurrency)."""

from __future__ import annotations

import asyncio

from fw.auth.assurance import grants
from fw.auth.stores import AuthStore


async def test_a_grant_is_redeemed_once(auth_store: AuthStore) -> None:
    grant = await grants.issue(auth_store.ceremonies, "acct-1")
    assert await grants.redeem(auth_store.ceremonies, grant, "acct-1")
    assert not await grants.redeem(auth_store.ceremonies, grant, "acct-1")


async def test_another_account_cannot_redeem_a_grant(auth_store: AuthStore) -> None:
    grant = await grants.issue(auth_store.ceremonies, "acct-1")
    assert not await grants.redeem(auth_store.ceremonies, grant, "acct-2")
    assert not await grants.redeem(auth_store.ceremonies, "", "acct-1")
    assert not await grants.redeem(auth_store.ceremonies, "x" * 200, "acct-1")


async def test_of_concurrent_redemptions_of_one_grant_exactly_one_succeeds(auth_store: AuthStore) -> None:
    grant = await grants.issue(auth_store.ceremonies, "acct-1")
    results = await asyncio.gather(*(grants.redeem(auth_store.ceremonies, grant, "acct-1") for _ in range(5)))
    assert sorted(results) == [False, False, False, False, True]
