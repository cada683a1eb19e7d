"""What only the firestore backend does: selection, the database mode, TTL policies named by the doctor."""

from __future__ import annotations

import secrets
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from google.api_core import exceptions as google_errors

import fw
import fw.auth
from fw.auth.sessions.settings import SessionKeyring, SessionSettings
from fw.auth.stores import StoreUnavailable, firestore
from fw.auth.stores.engine import StoreSettings
from fw.auth.stores.engines.firestore import FirestoreSettings
from fw.auth.stores.firestore import FirestoreStore
from fw.auth.stores.firestore_ttl import TTL_KINDS, ttl_advisories
from fw.auth.stores.records import AccountLink, BootstrapRecord
from fw.auth.stores.select import (
    check_session_backend,
    middleware_settings,
    open_auth_store,
    open_session_store,
)
from fw.configuration.advisory import AdvisoryContext, provided
from fw.errors import StartupError

from .conftest import unique
from .test_passkeys import credential


def _middleware(emulator: str) -> StoreSettings:
    """Firestore on the emulator, in a database of the test's own."""
    return middleware_settings(firestore=FirestoreSettings("fw-test", f"t-{secrets.token_hex(4)}", emulator))


def _sessions(backend: str) -> SessionSettings:
    return SessionSettings(True, backend, "", SessionKeyring(""))


async def test_firestore_serves_auth_and_sessions_from_one_client(firestore_emulator: str) -> None:
    middleware = _middleware(firestore_emulator)
    store = await open_auth_store("firestore", middleware, ["accounts", "sessions"])
    try:
        assert isinstance(store, FirestoreStore)
        sessions = open_session_store(_sessions("firestore"), store, middleware)
        value = await sessions.save({"account_id": "a"}, 4102444800.0)
        assert await store.sessions().load(value) == {"account_id": "a"}
        await sessions.close()  # the auth store's client stays open
        assert await store.sessions().load(value) == {"account_id": "a"}
    finally:
        await store.close()


async def test_firestore_sessions_under_another_auth_backend_open_their_own_client(
    firestore_emulator: str,
) -> None:
    sessions = open_session_store(_sessions("firestore"), None, _middleware(firestore_emulator))
    try:
        await sessions.check()
        value = await sessions.save({"account_id": "b"}, 4102444800.0)
        assert await sessions.load(value) == {"account_id": "b"}
    finally:
        await sessions.close()


async def _refusal(settings: FirestoreSettings) -> StartupError:
    """The startup error a store on ``settings`` answers when asked for the sessions collection."""
    store = FirestoreStore.open(settings, patience=0)
    try:
        with pytest.raises(StartupError) as refused:
            await store.require(["sessions"])
    finally:
        await store.close()
    return refused.value


async def test_a_database_not_in_datastore_mode_is_a_startup_error_naming_it(
    firestore_native_emulator: str,
) -> None:
    refused = await _refusal(FirestoreSettings("fw-test", "", firestore_native_emulator))
    assert (refused.key, refused.value) == ("middleware.firestore.database", "(default)")
    assert "not in Datastore mode" in str(refused)


async def test_an_unreachable_emulator_is_a_startup_error_naming_the_database() -> None:
    refused = await _refusal(FirestoreSettings("fw-test", "sessions-db", "127.0.0.1:9"))
    assert (refused.key, refused.value) == ("middleware.firestore.database", "sessions-db")
    assert "cannot be reached" in str(refused)


# Alike in shape to the redis test (test_selection.py): each extra names its own pip install.
def test_the_firestore_session_backend_without_its_extra_names_the_pip_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "google.cloud.datastore", None)
    with pytest.raises(StartupError) as refused:
        check_session_backend("firestore")
    assert "pip install 'fw-web[firestore]'" in str(refused.value)


def test_the_doctor_names_the_ttl_policies_firestore_relies_on() -> None:
    values = {
        "auth.enabled": True,
        "auth.backend": "firestore",
        "middleware.firestore.project": "shop",
        "middleware.firestore.database": "auth",
    }
    [advisory] = [found for found in provided(AdvisoryContext(values, {}, "prod")) if "ttls" in found.msg]
    assert (advisory.level, advisory.key) == ("warning", "auth.backend")
    for kind in TTL_KINDS:
        assert (
            f"gcloud firestore fields ttls update expires_at --collection-group={kind} --enable-ttl"
            " --project=shop --database=auth"
        ) in advisory.msg


def test_the_doctor_says_nothing_of_ttl_policies_when_firestore_is_not_used() -> None:
    values = {
        "auth.enabled": True,
        "auth.backend": "rdb",
        "session.enabled": False,
        "session.backend": "firestore",
    }
    assert ttl_advisories(AdvisoryContext(values, {}, "prod")) == []


@pytest.fixture
async def firestore_store(firestore_emulator: str) -> AsyncIterator[FirestoreStore]:
    store = FirestoreStore.open(
        FirestoreSettings("fw-test", "", firestore_emulator), namespace=unique("fw-t")
    )
    yield store
    await store.close()


def _aborting(store: FirestoreStore) -> list[int]:
    """Make every commit of the store's transactions lose to a concurrent one (``Aborted``), as
    under contention; the list counts the commits tried."""
    client = store.datastore.client
    opened = client.transaction
    commits: list[int] = []

    def transaction(**options: Any) -> Any:
        begun = opened(**options)

        def commit(**_: Any) -> None:
            commits.append(1)
            raise google_errors.Aborted("too much contention on these datastore entities")

        begun.commit = commit
        return begun

    client.transaction = transaction
    return commits


async def test_a_transaction_aborted_on_every_try_is_store_unavailable_and_writes_nothing(
    firestore_store: FirestoreStore,
) -> None:
    account = await firestore_store.accounts.resolve(AccountLink("i", unique("v")), create=True)
    assert account is not None
    now = datetime.now(UTC)
    login = unique("login")
    record = BootstrapRecord(
        login, account.account_id, "initial_passkey", b"d", now, now + timedelta(hours=1), 5
    )
    await firestore_store.bootstrap.create(record)
    assert await firestore_store.bootstrap.redeem(login, now + timedelta(minutes=10))
    commits = _aborting(firestore_store)
    first = credential(account.account_id)
    with pytest.raises(StoreUnavailable) as failed:
        await firestore_store.bootstrap.enroll(login, first)
    assert len(commits) == firestore._ATTEMPTS
    assert "lost to concurrent ones" in str(failed.value)
    assert fw.write_problem(None, failed.value).status_code == 503
    assert await firestore_store.passkeys.get(first.credential_id) is None
    left = await firestore_store.bootstrap.get(login)
    assert left is not None and left.redeemed


async def test_an_aborted_sign_in_creates_no_account(firestore_store: FirestoreStore) -> None:
    link = AccountLink("i", unique("v"))
    _aborting(firestore_store)
    with pytest.raises(StoreUnavailable):
        await firestore_store.accounts.resolve(link, create=True)
    del firestore_store.datastore.client.transaction  # commits go through again
    assert await firestore_store.accounts.resolve(link, create=False) is None
