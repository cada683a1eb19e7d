"""Ceremony records: put if absent, expiring, taken exactly once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from fw.auth.stores import AuthStore

from .conftest import unique


def _soon() -> datetime:
    return datetime.now(UTC) + timedelta(minutes=5)


async def test_a_record_is_taken_once(auth_store: AuthStore) -> None:
    ceremonies, key = auth_store.ceremonies, unique("challenge")
    assert await ceremonies.put(key, {"challenge": "abc", "user": [1, 2]}, _soon())
    assert await ceremonies.take(key) == {"challenge": "abc", "user": [1, 2]}
    assert await ceremonies.take(key) is None


async def test_a_key_held_by_an_unexpired_record_is_not_overwritten(auth_store: AuthStore) -> None:
    ceremonies, key = auth_store.ceremonies, unique("challenge")
    assert await ceremonies.put(key, {"n": 1}, _soon())
    assert not await ceremonies.put(key, {"n": 2}, _soon())
    assert await ceremonies.take(key) == {"n": 1}


async def test_an_expired_record_cannot_be_taken_and_gives_way_to_a_new_one(auth_store: AuthStore) -> None:
    ceremonies, key = auth_store.ceremonies, unique("challenge")
    assert await ceremonies.put(key, {"n": 1}, datetime.now(UTC) - timedelta(seconds=1))
    assert await ceremonies.take(key) is None
    assert await ceremonies.put(key, {"n": 2}, datetime.now(UTC) - timedelta(seconds=1))
    assert await ceremonies.put(key, {"n": 3}, _soon())
    assert await ceremonies.take(key) == {"n": 3}


async def test_taking_an_unknown_key_is_none(auth_store: AuthStore) -> None:
    assert await auth_store.ceremonies.take(unique("never-put")) is None


async def test_of_two_concurrent_takes_exactly_one_wins(auth_store: AuthStore) -> None:
    ceremonies = auth_store.ceremonies
    for _ in range(5):
        key = unique("raced")
        assert await ceremonies.put(key, {"challenge": key}, _soon())
        taken = await asyncio.gather(ceremonies.take(key), ceremonies.take(key))
        assert sorted(taken, key=lambda found: found is None) == [{"challenge": key}, None]
