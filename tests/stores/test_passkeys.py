"""Passkey credentials: found by ID, listed per account, sign counts that only move up."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from fw.auth.stores import AuthStore
from fw.auth.stores.records import PasskeyCredential

from .conftest import unique


def credential(account_id: str, *, sign_count: int = 0, created: datetime | None = None) -> PasskeyCredential:
    return PasskeyCredential(
        credential_id=os.urandom(32),
        account_id=account_id,
        public_key=os.urandom(77),
        sign_count=sign_count,
        user_handle=os.urandom(16),
        created_at=(created or datetime.now(UTC)).replace(microsecond=0),
        transports=("internal", "hybrid"),
        backup_eligible=True,
        backed_up=False,
    )


async def test_a_credential_is_found_by_its_id_and_listed_for_its_account_only(auth_store: AuthStore) -> None:
    passkeys, account = auth_store.passkeys, unique("acct")
    earlier = credential(account, created=datetime.now(UTC) - timedelta(days=1))
    later = credential(account)
    for item in (later, earlier, credential(unique("other"))):
        assert await passkeys.add(item)
    assert await passkeys.get(later.credential_id) == later
    assert await passkeys.by_account(account) == [earlier, later]
    assert await passkeys.get(os.urandom(32)) is None
    assert await passkeys.by_account(unique("nobody")) == []


async def test_a_credential_id_is_registered_once(auth_store: AuthStore) -> None:
    passkeys, account = auth_store.passkeys, unique("acct")
    first = credential(account)
    assert await passkeys.add(first)
    assert not await passkeys.add(replace(first, account_id=unique("thief"), public_key=b"other"))
    assert await passkeys.get(first.credential_id) == first


async def test_the_sign_count_only_moves_up(auth_store: AuthStore) -> None:
    passkeys = auth_store.passkeys
    item = credential(unique("acct"), sign_count=5)
    await passkeys.add(item)
    used = datetime.now(UTC).replace(microsecond=0)
    assert not await passkeys.record_use(item.credential_id, sign_count=5, backed_up=True, used_at=used)
    assert not await passkeys.record_use(item.credential_id, sign_count=4, backed_up=True, used_at=used)
    assert not await passkeys.record_use(item.credential_id, sign_count=0, backed_up=True, used_at=used)
    assert await passkeys.get(item.credential_id) == item  # refused uses change nothing
    assert await passkeys.record_use(item.credential_id, sign_count=9, backed_up=True, used_at=used)
    assert await passkeys.get(item.credential_id) == replace(
        item, sign_count=9, backed_up=True, last_used_at=used
    )
    assert not await passkeys.record_use(os.urandom(32), sign_count=1, backed_up=False, used_at=used)


async def test_a_synced_passkey_counting_zero_keeps_signing_in(auth_store: AuthStore) -> None:
    passkeys = auth_store.passkeys
    item = credential(unique("acct"), sign_count=0)
    await passkeys.add(item)
    for _ in range(2):
        used = datetime.now(UTC).replace(microsecond=0)
        assert await passkeys.record_use(item.credential_id, sign_count=0, backed_up=True, used_at=used)
        stored = await passkeys.get(item.credential_id)
        assert stored is not None and stored.last_used_at == used and stored.sign_count == 0


async def test_removing_a_credential_needs_the_account_that_owns_it(auth_store: AuthStore) -> None:
    passkeys, account = auth_store.passkeys, unique("acct")
    item = credential(account)
    await passkeys.add(item)
    assert not await passkeys.remove(unique("someone-else"), item.credential_id)
    assert await passkeys.remove(account, item.credential_id)
    assert await passkeys.get(item.credential_id) is None
    assert not await passkeys.remove(account, item.credential_id)


async def test_of_concurrent_sign_ins_presenting_one_count_exactly_one_is_recorded(
    auth_store: AuthStore,
) -> None:
    passkeys = auth_store.passkeys
    item = credential(unique("acct"), sign_count=4)
    await passkeys.add(item)
    used = datetime.now(UTC).replace(microsecond=0)
    raced = [
        passkeys.record_use(item.credential_id, sign_count=5, backed_up=False, used_at=used) for _ in range(3)
    ]
    assert sorted(await asyncio.gather(*raced)) == [False, False, True]
    stored = await passkeys.get(item.credential_id)
    assert stored is not None and stored.sign_count == 5
