"""Session backends (rdb on SQLite and PostgreSQL, sealed cookie, Redis), lifetimes and the cookie."""

from __future__ import annotations

import asyncio
import secrets
import time

import pytest

from auth_oidc.conftest import Build
from auth_oidc.support import session_settings
from fw.auth.sessions import Sessions, SessionSummary
from fw.auth.sessions import manager as manager_module
from fw.auth.stores import SessionStore
from fw.auth.stores.cookie import CookieSessions
from fw.auth.stores.rdb import RdbSessions
from fw.auth.stores.redis import RedisSessions
from fw.errors import StartupError
from fw.testing import TestIdentityProvider

SUMMARY = SessionSummary("acct", "Alice", "alice@example.test", "https://id.example", "alice", 1700000000)


async def resumed(sessions: Sessions, value: str) -> SessionSummary | None:
    """The summary of the live session behind ``value``, or ``None``."""
    active = await sessions.resume(value)
    return None if active is None else active.summary


@pytest.fixture
def store(session_store: SessionStore) -> SessionStore:
    return session_store


async def test_a_session_round_trips_an_account_summary_only(store: SessionStore) -> None:
    sessions = Sessions(store, ttl=3600, idle_timeout=0)
    value = await sessions.start(SUMMARY)
    active = await sessions.resume(value)
    assert active is not None and active.summary == SUMMARY
    assert set(active.record) == {
        "account_id",
        "display_name",
        "email",
        "issuer",
        "key",
        "auth_time",
        "method",
        "kind",
        "created_at",
        "last_seen",
    }


async def test_an_ended_session_is_gone(store: SessionStore) -> None:
    sessions = Sessions(store, ttl=3600, idle_timeout=0)
    value = await sessions.start(SUMMARY)
    await sessions.end(value)
    if store.name != "cookie":  # a sealed cookie cannot be recalled; the browser's copy is expired instead
        assert await sessions.resume(value) is None


async def test_starting_a_session_revokes_the_previous_one(store: SessionStore) -> None:
    sessions = Sessions(store, ttl=3600, idle_timeout=0)
    first = await sessions.start(SUMMARY)
    second = await sessions.start(SUMMARY, previous=first)
    assert first != second
    assert await resumed(sessions, second) == SUMMARY
    if store.name != "cookie":
        assert await sessions.resume(first) is None


async def test_sessions_expire_after_their_ttl(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = Sessions(store, ttl=60, idle_timeout=0)
    value = await sessions.start(SUMMARY)
    later = time.time() + 61
    monkeypatch.setattr(manager_module.time, "time", lambda: later)
    assert await sessions.resume(value) is None


async def test_sessions_expire_after_the_idle_timeout_and_activity_extends_them(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = Sessions(store, ttl=3600, idle_timeout=100)
    value = await sessions.start(SUMMARY)
    now = time.time()
    monkeypatch.setattr(manager_module.time, "time", lambda: now + 80)
    active = await sessions.resume(value)
    assert active is not None
    monkeypatch.setattr(manager_module.time, "time", lambda: now + 160)
    assert await resumed(sessions, active.value) == SUMMARY
    monkeypatch.setattr(manager_module.time, "time", lambda: now + 300)
    assert await sessions.resume(active.value) is None


@pytest.mark.parametrize("value", ["", "x", "A" * 43, "A" * 44, "!!!!", "A" * 4000])
async def test_unknown_or_malformed_values_are_none(store: SessionStore, value: str) -> None:
    assert await Sessions(store, ttl=60, idle_timeout=0).resume(value) is None


def test_a_sealed_cookie_rejects_tampering_truncation_and_other_keys() -> None:
    store = CookieSessions(secrets.token_urlsafe(32))
    sealed = store.seal({"account_id": "a"}, time.time() + 60)
    assert store.unseal(sealed) == {"account_id": "a"}
    flipped = sealed[:20] + ("A" if sealed[20] != "A" else "B") + sealed[21:]
    assert store.unseal(flipped) is None
    assert store.unseal(sealed[:-2]) is None
    assert CookieSessions(secrets.token_urlsafe(32)).unseal(sealed) is None
    assert store.unseal(store.seal({"account_id": "a"}, time.time() - 1)) is None
    assert "account_id" not in sealed


@pytest.mark.parametrize("secret", ["", "short", "not base64 at all !!"])
def test_the_cookie_backend_refuses_a_weak_secret(secret: str) -> None:
    with pytest.raises(StartupError) as caught:
        CookieSessions(secret)
    assert caught.value.key == "session.keyring.secret"


def test_login_works_with_the_sealed_cookie_backend(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser(session=session_settings("cookie", secret=secrets.token_urlsafe(32)))
    client.login("alice")
    assert client.get("/me").json()["display_name"] == "Alice Example"
    client.logout()
    assert client.get("/me").json() == {"signed_in": False}


def test_login_works_with_the_redis_backend(
    browser: Build, idp: TestIdentityProvider, redis_url: str
) -> None:
    client, _ = browser(session=session_settings("redis", redis_url=redis_url))
    client.login("alice")
    assert client.get("/me").json()["signed_in"] is True
    client.logout()
    assert client.get("/me").json() == {"signed_in": False}


def test_a_session_store_outage_is_a_503(browser: Build, idp: TestIdentityProvider, redis_url: str) -> None:
    client, extension = browser(session=session_settings("redis", redis_url=redis_url))
    client.login("alice")
    assert isinstance(extension.store, RedisSessions)
    broken = RedisSessions("redis://127.0.0.1:1/0")
    extension.sessions.store = broken
    response = client.get("/me")
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    asyncio.run(broken.close())


def test_with_the_cookie_backend_a_copied_cookie_outlives_logout_but_not_suspension(
    browser: Build, idp: TestIdentityProvider
) -> None:
    import fw
    from fw.auth import Account

    state = {"active": True}
    fw.auth.set_account_resolver(lambda identity: Account("sealed-1"))
    fw.auth.set_account_lookup(lambda account_id: Account(account_id, active=state["active"]))
    client, _ = browser(session=session_settings("cookie", secret=secrets.token_urlsafe(32)))
    client.login("alice")
    copy = next(c.value for c in client.cookies.jar if c.name == "fw_session")
    client.logout()
    client.cookies.clear()
    client.cookies.set("fw_session", copy, domain="localhost.local")
    assert client.get("/me").json()["signed_in"] is True  # the documented caveat of sealed cookies
    state["active"] = False
    fw.auth.forget_account("sealed-1")
    assert client.get("/me").json() == {"signed_in": False}
    client.cookies.set("fw_session", copy, domain="localhost.local")
    assert client.get("/me").json() == {"signed_in": False}  # still refused: re-read again, not cached


async def test_every_backend_hands_all_processes_one_shared_key(store: SessionStore) -> None:
    first = await store.shared_key()
    assert len(first) == 32
    assert await store.shared_key() == first  # a second process asking gets the same key
    if isinstance(store, RdbSessions):
        # The key row is not a session: no cookie value can address it, the purge never removes it.
        assert await store.load("fw:shared-key") is None
        assert await Sessions(store, ttl=60, idle_timeout=0).resume("fw:shared-key") is None
