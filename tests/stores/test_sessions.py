"""The session interface: records under cookie values, expiry, destruction, the shared key."""

from __future__ import annotations

import asyncio
import time

import pytest

from fw.auth.stores import SessionStore

from .conftest import Backend, unique

RECORD = {"account_id": "acct", "kind": "session", "display_name": "Alice"}


async def test_a_saved_record_loads_under_the_value_save_returned(sessions: SessionStore) -> None:
    value = await sessions.save(dict(RECORD), time.time() + 60)
    assert await sessions.load(value) == RECORD


async def test_update_rewrites_the_record_and_keeps_it_loadable(sessions: SessionStore) -> None:
    value = await sessions.save(dict(RECORD), time.time() + 60)
    changed = {**RECORD, "display_name": "Alice Renamed"}
    new_value = await sessions.update(value, dict(changed), time.time() + 60)
    assert await sessions.load(new_value) == changed


async def test_a_destroyed_session_no_longer_loads(recalling_backend: Backend) -> None:
    sessions = recalling_backend.sessions
    value = await sessions.save(dict(RECORD), time.time() + 60)
    await sessions.delete(value)
    assert await sessions.load(value) is None


async def test_an_expired_record_does_not_load(sessions: SessionStore) -> None:
    value = await sessions.save(dict(RECORD), time.time() - 1)
    assert await sessions.load(value) is None


async def test_sessions_read_at_once_each_load_their_own_record(recalling_backend: Backend) -> None:
    """Many signed-in requests of one turn of the event loop (a busy server): the Redis store
    sends such reads together, each reader must still get exactly its own answer."""
    sessions = recalling_backend.sessions
    records = [{**RECORD, "account_id": unique("acct")} for _ in range(40)]
    values = [await sessions.save(dict(record), time.time() + 60) for record in records]
    gone = values[5]
    await sessions.delete(gone)
    asked = [*values, "A" * 43, values[0], "nonsense"]
    loaded = await asyncio.gather(*(sessions.load(value) for value in asked))
    expected = [*records, None, records[0], None]
    expected[5] = None
    assert loaded == expected


@pytest.mark.parametrize("value", ["", "x", "A" * 43, "A" * 44, "!!!!", "A" * 4000, "fw:shared-key"])
async def test_unknown_or_malformed_values_load_as_none(sessions: SessionStore, value: str) -> None:
    await sessions.shared_key()
    assert await sessions.load(value) is None
    await sessions.delete(value)  # deleting what is not there is harmless


async def test_every_session_of_an_account_is_destroyed_at_once(backend: Backend) -> None:
    sessions, account = backend.sessions, unique("acct")
    mine = [await sessions.save({**RECORD, "account_id": account}, time.time() + 60) for _ in range(3)]
    kept = {**RECORD, "account_id": unique("other")}
    other = await sessions.save(dict(kept), time.time() + 60)
    destroyed = await sessions.delete_account(account)
    if not backend.recalls_sessions:
        assert destroyed == 0  # nothing server-side: the account re-read ends these sessions
        return
    assert destroyed == 3
    assert [await sessions.load(value) for value in mine] == [None, None, None]
    assert await sessions.load(other) == kept
    assert await sessions.delete_account(account) == 0


async def test_every_session_carrying_a_mark_is_destroyed_at_once(backend: Backend) -> None:
    sessions, mark, other_mark = backend.sessions, unique("sid"), unique("sid")
    marked = [
        await sessions.save({**RECORD, "marks": [mark, unique("sub")]}, time.time() + 60) for _ in range(2)
    ]
    other_record = {**RECORD, "marks": [other_mark]}
    other = await sessions.save(dict(other_record), time.time() + 60)
    unmarked = await sessions.save(dict(RECORD), time.time() + 60)
    destroyed = await sessions.delete_marked(mark)
    if not backend.recalls_sessions:
        assert destroyed == 0  # nothing server-side: browser modes refuse back-channel logout here
        return
    assert destroyed == 2
    assert [await sessions.load(value) for value in marked] == [None, None]
    assert await sessions.load(other) == other_record
    assert await sessions.load(unmarked) == RECORD
    assert await sessions.delete_marked(mark) == 0


async def test_a_mark_still_finds_a_session_after_it_was_updated(recalling_backend: Backend) -> None:
    sessions, mark = recalling_backend.sessions, unique("sid")
    value = await sessions.save({**RECORD, "marks": [mark]}, time.time() + 60)
    value = await sessions.update(value, {**RECORD, "marks": [mark], "display_name": "B"}, time.time() + 120)
    assert await sessions.delete_marked(mark) == 1
    assert await sessions.load(value) is None


async def test_a_mark_reaches_sessions_saved_by_another_process(recalling_backend: Backend) -> None:
    mark = unique("sid")
    value = await recalling_backend.sessions.save({**RECORD, "marks": [mark]}, time.time() + 60)
    another = recalling_backend.reopen_sessions()  # closed with the backend, as above
    assert await another.delete_marked(mark) == 1
    assert await recalling_backend.sessions.load(value) is None


async def test_every_process_gets_the_same_32_byte_shared_key(backend: Backend) -> None:
    first = await backend.sessions.shared_key()
    assert len(first) == 32
    assert await backend.sessions.shared_key() == first
    another = backend.reopen_sessions()
    assert await another.shared_key() == first
