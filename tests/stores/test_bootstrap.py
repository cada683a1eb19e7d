"""Bootstrap records: a secret digest with an expiry, counted attempts, redeemed once, spent by
the enrollment that stores the first passkey and activates the account in one step."""

from __future__ import annotations

import asyncio
import hashlib
import os
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from fw.auth.stores import AuthStore
from fw.auth.stores.records import AccountLink, BootstrapRecord

from .conftest import unique
from .test_passkeys import credential


async def _record(
    auth_store: AuthStore, *, expires_in: timedelta = timedelta(hours=72), attempts: int = 5
) -> BootstrapRecord:
    account = await auth_store.accounts.resolve(
        AccountLink(unique("passkey"), unique("login"), "", ""), create=True, active=False
    )
    assert account is not None
    now = datetime.now(UTC).replace(microsecond=0)
    record = BootstrapRecord(
        login_id=unique("login"),
        account_id=account.account_id,
        purpose="initial_passkey",
        secret_digest=hashlib.sha256(os.urandom(32)).digest(),
        created_at=now,
        expires_at=now + expires_in,
        attempts_left=attempts,
    )
    await auth_store.bootstrap.create(record)
    return record


async def test_a_record_round_trips_until_it_expires(auth_store: AuthStore) -> None:
    record = await _record(auth_store)
    assert await auth_store.bootstrap.get(record.login_id) == record
    expired = await _record(auth_store, expires_in=timedelta(seconds=-1))
    assert await auth_store.bootstrap.get(expired.login_id) is None
    assert not await auth_store.bootstrap.spend_attempt(expired.login_id)
    assert not await auth_store.bootstrap.redeem(expired.login_id, datetime.now(UTC) + timedelta(minutes=10))
    assert await auth_store.bootstrap.get(unique("unknown")) is None


async def test_issuing_again_replaces_the_earlier_record(auth_store: AuthStore) -> None:
    record = await _record(auth_store, attempts=1)
    assert await auth_store.bootstrap.spend_attempt(record.login_id)
    fresh = replace(record, secret_digest=hashlib.sha256(b"new").digest(), attempts_left=5)
    await auth_store.bootstrap.create(fresh)
    assert await auth_store.bootstrap.get(record.login_id) == fresh


async def test_concurrent_attempts_never_spend_more_than_were_granted(auth_store: AuthStore) -> None:
    bootstrap = auth_store.bootstrap
    record = await _record(auth_store, attempts=3)
    spent = await asyncio.gather(*(bootstrap.spend_attempt(record.login_id) for _ in range(6)))
    assert sorted(spent) == [False, False, False, True, True, True]
    left = await bootstrap.get(record.login_id)
    assert left is not None and left.attempts_left == 0
    assert not await bootstrap.spend_attempt(unique("unknown"))


async def test_a_record_is_redeemed_once_and_then_expires_with_the_enrollment(auth_store: AuthStore) -> None:
    bootstrap = auth_store.bootstrap
    record = await _record(auth_store)
    enrollment_ends = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=10)
    won = await asyncio.gather(*(bootstrap.redeem(record.login_id, enrollment_ends) for _ in range(3)))
    assert sorted(won) == [False, False, True]
    redeemed = await bootstrap.get(record.login_id)
    assert redeemed == replace(record, redeemed=True, expires_at=enrollment_ends)
    assert not await bootstrap.spend_attempt(record.login_id)  # a redeemed record takes no more guesses
    soon = await _record(auth_store, expires_in=timedelta(minutes=2))
    assert await bootstrap.redeem(soon.login_id, enrollment_ends)
    kept = await bootstrap.get(soon.login_id)
    assert kept is not None and kept.expires_at == soon.expires_at  # never extended


async def test_enrollment_stores_the_passkey_activates_the_account_and_spends_the_record_at_once(
    auth_store: AuthStore,
) -> None:
    record = await _record(auth_store)
    await auth_store.bootstrap.redeem(record.login_id, datetime.now(UTC) + timedelta(minutes=10))
    first = credential(record.account_id)
    assert await auth_store.bootstrap.enroll(record.login_id, first)
    assert await auth_store.passkeys.get(first.credential_id) == first
    account = await auth_store.accounts.get(record.account_id)
    assert account is not None and account.active
    assert await auth_store.bootstrap.get(record.login_id) is None
    assert not await auth_store.bootstrap.enroll(record.login_id, credential(record.account_id))


async def test_enrollment_changes_nothing_unless_every_condition_holds(auth_store: AuthStore) -> None:
    record = await _record(auth_store)
    unredeemed = credential(record.account_id)
    assert not await auth_store.bootstrap.enroll(record.login_id, unredeemed)
    await auth_store.bootstrap.redeem(record.login_id, datetime.now(UTC) + timedelta(minutes=10))
    assert not await auth_store.bootstrap.enroll(record.login_id, credential(unique("another-account")))
    taken = credential(unique("owner"))
    await auth_store.passkeys.add(taken)
    assert not await auth_store.bootstrap.enroll(
        record.login_id, replace(taken, account_id=record.account_id)
    )
    assert await auth_store.passkeys.get(unredeemed.credential_id) is None
    account = await auth_store.accounts.get(record.account_id)
    assert account is not None and not account.active
    still = await auth_store.bootstrap.get(record.login_id)
    assert still is not None and still.redeemed  # rolled back: the record was not spent


async def test_of_concurrent_first_enrollments_exactly_one_stores_its_passkey(auth_store: AuthStore) -> None:
    record = await _record(auth_store)
    await auth_store.bootstrap.redeem(record.login_id, datetime.now(UTC) + timedelta(minutes=10))
    rivals = [credential(record.account_id) for _ in range(3)]
    won = await asyncio.gather(*(auth_store.bootstrap.enroll(record.login_id, rival) for rival in rivals))
    assert sorted(won) == [False, False, True]
    stored = await auth_store.passkeys.by_account(record.account_id)
    assert [item.credential_id for item in stored] == [rivals[won.index(True)].credential_id]
