"""Revocation entries: scoped by issuer and kind, stamped, expiring after their lifetime."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from fw.auth.stores import AuthStore
from fw.auth.stores.records import RevocationEntries

from .conftest import unique

HOUR = timedelta(hours=1)


async def test_put_stamps_now_and_a_second_put_moves_the_stamp(auth_store: AuthStore) -> None:
    revocations, issuer = auth_store.revocations, unique("https://issuer")
    before = datetime.now(UTC)
    first = await revocations.put(issuer, "token", "jti-1", "leaked", HOUR)
    assert before - timedelta(seconds=1) <= first <= datetime.now(UTC)
    assert await revocations.stamp(issuer, "token", "jti-1") == first
    second = await revocations.put(issuer, "token", "jti-1", "again", HOUR)
    assert second >= first
    assert await revocations.stamp(issuer, "token", "jti-1") == second


async def test_entries_are_scoped_by_issuer_and_kind(auth_store: AuthStore) -> None:
    revocations, issuer = auth_store.revocations, unique("https://issuer")
    stamped = await revocations.put(issuer, "subject", "alice", "", HOUR)
    assert await revocations.stamp(issuer, "token", "alice") is None
    assert await revocations.stamp(unique("https://other"), "subject", "alice") is None
    assert await revocations.stamp(issuer, "subject", "alice") == stamped


async def test_lookup_answers_both_entries_of_a_token_at_once(auth_store: AuthStore) -> None:
    revocations, issuer = auth_store.revocations, unique("https://issuer")
    by_token = await revocations.put(issuer, "token", "jti-2", "", HOUR)
    by_subject = await revocations.put(issuer, "subject", "bob", "", HOUR)
    assert await revocations.lookup(issuer, "jti-2", "bob") == RevocationEntries(by_token, by_subject)
    assert await revocations.lookup(issuer, "jti-2", None) == RevocationEntries(by_token, None)
    assert await revocations.lookup(issuer, None, "bob") == RevocationEntries(None, by_subject)
    assert await revocations.lookup(issuer, "other", "carol") == RevocationEntries(None, None)
    assert await revocations.lookup(issuer, None, None) == RevocationEntries(None, None)


async def test_an_entry_expires_after_its_lifetime(auth_store: AuthStore) -> None:
    revocations, issuer = auth_store.revocations, unique("https://issuer")
    await revocations.put(issuer, "token", "short", "", timedelta(seconds=-1))
    await revocations.put(issuer, "subject", "short", "", timedelta(seconds=-1))
    assert await revocations.stamp(issuer, "token", "short") is None
    assert await revocations.lookup(issuer, "short", "short") == RevocationEntries(None, None)


async def test_clean_deletes_expired_entries_and_keeps_live_ones(auth_store: AuthStore) -> None:
    revocations, issuer = auth_store.revocations, unique("https://issuer")
    lasting = await revocations.put(issuer, "subject", "lasting", "", HOUR)
    # Written last, and alive long enough that no clean-up a write runs (firestore's put cleans)
    # can take it first, however slow the machine: only the clean() below may delete it.
    brief = timedelta(seconds=2)
    written = await revocations.put(issuer, "token", "brief", "", brief)
    await asyncio.sleep((written + brief - datetime.now(UTC)).total_seconds() + 0.05)
    assert await revocations.clean() >= 1
    assert not await revocations.remove(issuer, "token", "brief")  # already deleted
    assert await revocations.stamp(issuer, "subject", "lasting") == lasting


async def test_remove_says_whether_an_entry_existed(auth_store: AuthStore) -> None:
    revocations, issuer = auth_store.revocations, unique("https://issuer")
    await revocations.put(issuer, "token", "jti-3", "", HOUR)
    assert await revocations.remove(issuer, "token", "jti-3")
    assert await revocations.stamp(issuer, "token", "jti-3") is None
    assert not await revocations.remove(issuer, "token", "jti-3")
