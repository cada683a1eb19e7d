"""Zero-window step-up grants on every auth backend: used once, by its own account only, for the
operation that asked for it only, and of concurrent redemptions exactly one succeeds (what makes
confirmed(0) hold under concurrency)."""

from __future__ import annotations

import asyncio

import pytest

from fw.auth.assurance import grants
from fw.auth.stores import AuthStore

DELETE = grants.operation_id("ensure(confirmed(0s))", "POST", "/account/delete")
EXPORT = grants.operation_id("ensure(confirmed(0s))", "POST", "/account/export")


async def test_a_grant_is_redeemed_once(auth_store: AuthStore) -> None:
    grant = await grants.issue(auth_store.ceremonies, "acct-1", DELETE)
    assert await grants.redeem(auth_store.ceremonies, grant, "acct-1", DELETE)
    assert not await grants.redeem(auth_store.ceremonies, grant, "acct-1", DELETE)


async def test_another_account_cannot_redeem_a_grant(auth_store: AuthStore) -> None:
    grant = await grants.issue(auth_store.ceremonies, "acct-1", DELETE)
    assert not await grants.redeem(auth_store.ceremonies, grant, "acct-2", DELETE)
    assert not await grants.redeem(auth_store.ceremonies, "", "acct-1", DELETE)
    assert not await grants.redeem(auth_store.ceremonies, "x" * 200, "acct-1", DELETE)


async def test_a_grant_does_not_serve_another_operation_and_stays_for_its_own(auth_store: AuthStore) -> None:
    grant = await grants.issue(auth_store.ceremonies, "acct-1", DELETE)
    assert not await grants.redeem(auth_store.ceremonies, grant, "acct-1", EXPORT)
    assert not await grants.redeem(auth_store.ceremonies, grant, "acct-1", "not an operation")
    assert await grants.redeem(auth_store.ceremonies, grant, "acct-1", DELETE)


async def test_of_concurrent_redemptions_of_one_grant_exactly_one_succeeds(auth_store: AuthStore) -> None:
    grant = await grants.issue(auth_store.ceremonies, "acct-1", DELETE)
    results = await asyncio.gather(
        *(grants.redeem(auth_store.ceremonies, grant, "acct-1", DELETE) for _ in range(5))
    )
    assert sorted(results) == [False, False, False, False, True]


def test_an_operation_id_names_the_guard_the_method_and_the_path() -> None:
    ids = {
        DELETE,
        EXPORT,
        grants.operation_id("ensure_api(confirmed(0s))", "POST", "/account/delete"),
        grants.operation_id("ensure(confirmed(0s))", "GET", "/account/delete"),
        grants.operation_id("ensure(policy('each_time'))", "POST", "/account/delete"),
    }
    assert len(ids) == 5 and all(grants.is_operation_id(value) for value in ids)
    assert grants.operation_id("ensure(confirmed(0s))", "post", "/account/delete") == DELETE


async def test_a_grant_is_issued_only_for_an_operation(auth_store: AuthStore) -> None:
    with pytest.raises(ValueError, match="one operation"):
        await grants.issue(auth_store.ceremonies, "acct-1", "")
