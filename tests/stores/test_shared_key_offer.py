"""The shared key a store keeps: the key a process offers when the store holds none, and never a
replacement for the one it holds (how workers re-agree after a store lost the key, see
:mod:`fw.auth.browser.login_keys`)."""

from __future__ import annotations

import secrets

import pytest

from fw.auth.stores import SessionStore

from .conftest import Backend

#: Engines whose store starts empty in every test (PostgreSQL is one database shared by all tests,
#: which may hold a key already; the cookie backend derives its key from the configuration).
EMPTY_AT_START = ["sqlite", "redis", "dynamo", "firestore"]


@pytest.fixture(params=EMPTY_AT_START)
def empty_sessions(request: pytest.FixtureRequest) -> SessionStore:
    found = request.getfixturevalue(f"{request.param}_backend")
    assert isinstance(found, Backend)
    return found.sessions


async def test_a_store_holding_no_key_keeps_the_key_a_process_offers(empty_sessions: SessionStore) -> None:
    offered = secrets.token_bytes(32)
    assert await empty_sessions.shared_key(offer=offered) == offered
    assert await empty_sessions.shared_key() == offered


async def test_an_offer_never_replaces_the_key_a_store_holds(backend: Backend) -> None:
    held = await backend.sessions.shared_key()
    assert await backend.sessions.shared_key(offer=secrets.token_bytes(32)) == held
    assert await backend.reopen_sessions().shared_key(offer=secrets.token_bytes(32)) == held
