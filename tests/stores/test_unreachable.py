"""Every store failure is the one StoreUnavailable, a 503 problem with code ``unavailable``."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import fw
from fw.auth.stores import AuthStore, SessionStore, StoreUnavailable
from fw.auth.stores.records import AccountLink, BootstrapRecord

from .conftest import Backend
from .test_passkeys import credential

NOW = datetime.now(UTC)
BOOTSTRAP = BootstrapRecord("login", "acct", "initial_passkey", b"digest", NOW, NOW + timedelta(hours=1), 5)

AUTH_CALLS: dict[str, Callable[[AuthStore], Awaitable[Any]]] = {
    "accounts.resolve": lambda s: s.accounts.resolve(AccountLink("i", "v", "", ""), create=True),
    "accounts.get": lambda s: s.accounts.get("a"),
    "accounts.set_active": lambda s: s.accounts.set_active("a", False),
    "allowlist.contains_any": lambda s: s.allowlist.contains_any("i", [("sub", "v")]),
    "allowlist.add": lambda s: s.allowlist.add("i", "sub", "v"),
    "allowlist.remove": lambda s: s.allowlist.remove("i", "sub", "v"),
    "revocations.put": lambda s: s.revocations.put("i", "token", "k", "", timedelta(hours=1)),
    "revocations.remove": lambda s: s.revocations.remove("i", "token", "k"),
    "revocations.stamp": lambda s: s.revocations.stamp("i", "token", "k"),
    "revocations.lookup": lambda s: s.revocations.lookup("i", "k", "v"),
    "revocations.clean": lambda s: s.revocations.clean(),
    "ceremonies.put": lambda s: s.ceremonies.put("k", {}, NOW + timedelta(minutes=5)),
    "ceremonies.take": lambda s: s.ceremonies.take("k"),
    "passkeys.add": lambda s: s.passkeys.add(credential("a")),
    "passkeys.by_account": lambda s: s.passkeys.by_account("a"),
    "passkeys.get": lambda s: s.passkeys.get(os.urandom(16)),
    "passkeys.remove": lambda s: s.passkeys.remove("a", os.urandom(16)),
    "passkeys.record_use": lambda s: s.passkeys.record_use(
        os.urandom(16), sign_count=1, backed_up=False, used_at=NOW
    ),
    "bootstrap.create": lambda s: s.bootstrap.create(BOOTSTRAP),
    "bootstrap.get": lambda s: s.bootstrap.get("login"),
    "bootstrap.spend_attempt": lambda s: s.bootstrap.spend_attempt("login"),
    "bootstrap.redeem": lambda s: s.bootstrap.redeem("login", NOW),
    "bootstrap.enroll": lambda s: s.bootstrap.enroll("login", credential("acct")),
}

SESSION_CALLS: dict[str, Callable[[SessionStore], Awaitable[Any]]] = {
    "save": lambda s: s.save({"account_id": "a"}, NOW.timestamp() + 60),
    "load": lambda s: s.load("A" * 43),
    "update": lambda s: s.update("A" * 43, {"account_id": "a"}, NOW.timestamp() + 60),
    "delete": lambda s: s.delete("A" * 43),
    "delete_account": lambda s: s.delete_account("a"),
    "delete_marked": lambda s: s.delete_marked("m" * 64),
    "shared_key": lambda s: s.shared_key(),
}


def _unreachable(backend: Backend) -> Any:
    assert backend.unreachable is not None
    return backend.unreachable()


@pytest.mark.parametrize("call", list(AUTH_CALLS))
async def test_every_auth_store_method_fails_as_store_unavailable_when_unreachable(
    server_auth_backend: Backend, call: str
) -> None:
    store = _unreachable(server_auth_backend)
    try:
        with pytest.raises(StoreUnavailable):
            await AUTH_CALLS[call](store)
    finally:
        await store.close()


# The session-store twin of the auth-store test above; the calls and the engines differ.
@pytest.mark.parametrize("call", list(SESSION_CALLS))
async def test_every_session_store_method_fails_as_store_unavailable_when_unreachable(
    server_backend: Backend, call: str
) -> None:
    unreachable = _unreachable(server_backend)
    sessions = unreachable if server_backend.auth is None else unreachable.sessions()
    try:
        with pytest.raises(StoreUnavailable):
            await SESSION_CALLS[call](sessions)
    finally:
        await unreachable.close()


def test_store_unavailable_renders_as_a_503_problem_with_code_unavailable_and_no_reason() -> None:
    response = fw.write_problem(None, StoreUnavailable("connection refused by 127.0.0.1:9"))
    assert response.status_code == 503
    assert b'"code":"unavailable"' in response.body
    assert b"127.0.0.1" not in response.body
