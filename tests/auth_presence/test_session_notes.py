"""What presence keeps in a session, in every session backend: when someone was last present,
never a longer life, and a resume that leaves the idle clock alone when asked to."""

from __future__ import annotations

import time

import pytest

from fw.auth.assurance.presence import PRESENT_AT, PresenceRules
from fw.auth.sessions import Sessions, SessionSummary
from fw.auth.stores import SessionStore

SUMMARY = SessionSummary("acct", "Alice", "alice@example.test", "https://id.example", "alice", 1700000000)


# The same one-line alias as auth_oidc/test_sessions.py: each file names the store its tests use.
@pytest.fixture
def store(session_store: SessionStore) -> SessionStore:
    return session_store


async def test_presence_noted_in_a_session_is_read_back_by_the_next_request(store: SessionStore) -> None:
    sessions = Sessions(store, ttl=3600, idle_timeout=0)
    value = await sessions.start(SUMMARY)
    active = await sessions.resume(value)
    assert active is not None
    noted_at = time.time() + 5
    await sessions.note(active, **{PRESENT_AT: noted_at})
    again = await sessions.resume(active.value)
    assert again is not None and again.record[PRESENT_AT] == noted_at
    assert again.summary == SUMMARY
    assert PresenceRules(60, 1800).last_present(again.record) == noted_at


async def test_noting_presence_never_moves_the_absolute_expiry(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = Sessions(store, ttl=100, idle_timeout=0)
    now = time.time()
    value = await sessions.start(SUMMARY)
    active = await sessions.resume(value)
    assert active is not None
    monkeypatch.setattr(time, "time", lambda: now + 90)
    await sessions.note(active, **{PRESENT_AT: now + 90})
    assert active.expires_at == pytest.approx(now + 100, abs=1)
    monkeypatch.setattr(time, "time", lambda: now + 101)
    assert await sessions.resume(active.value) is None


# Each test starts Sessions with its own ttl and idle timeout so it reads whole; the outcomes differ.
async def test_a_quiet_resume_leaves_the_idle_clock_where_it_was(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = Sessions(store, ttl=3600, idle_timeout=100)
    now = time.time()
    value = await sessions.start(SUMMARY)
    for step in (40, 80):
        monkeypatch.setattr(time, "time", lambda step=step: now + step)
        quiet = await sessions.resume(value, touch=False)
        assert quiet is not None and not quiet.renewed
        value = quiet.value
    monkeypatch.setattr(time, "time", lambda: now + 101)
    assert await sessions.resume(value, touch=False) is None  # idle since the start


async def test_a_touching_resume_keeps_an_active_session_alive(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = Sessions(store, ttl=3600, idle_timeout=100)
    now = time.time()
    value = await sessions.start(SUMMARY)
    for step in (40, 80, 120, 160):
        monkeypatch.setattr(time, "time", lambda step=step: now + step)
        touched = await sessions.resume(value)
        assert touched is not None
        value = touched.value
