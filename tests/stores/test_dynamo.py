"""What only the DynamoDB store has: its table and TTL checked at startup and created by
``fw migrate``, and DynamoDB's own failures (throttling, conflicting transactions) as the one
StoreUnavailable, with nothing half-written."""

from __future__ import annotations

import asyncio
import secrets
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import fw
from fw import configuration
from fw.auth.sessions.settings import SessionKeyring, SessionSettings
from fw.auth.settings import AuthSettings
from fw.auth.stores import StoreUnavailable, dynamo
from fw.auth.stores.dynamo import DynamoStore, create_table, table_name
from fw.auth.stores.engines.dynamo import DynamoSettings
from fw.auth.stores.engines.rdb import RdbSettings
from fw.auth.stores.records import AccountLink, BootstrapRecord
from fw.auth.stores.select import middleware_settings, open_session_store
from fw.cli import main as fw_command
from fw.errors import StartupError

from .conftest import create_table_without_ttl, dynamo_settings
from .test_passkeys import credential


async def test_a_missing_table_is_a_startup_error_naming_fw_migrate(dynamo_endpoint: str) -> None:
    store = DynamoStore.open(dynamo_settings(dynamo_endpoint))
    try:
        with pytest.raises(StartupError) as refused:
            await store.require(["sessions", "accounts"])
    finally:
        await store.close()
    assert refused.value.key == "middleware.dynamo.table_prefix"
    assert "does not exist" in str(refused.value) and "fw migrate" in str(refused.value)


async def test_a_table_without_ttl_is_a_startup_error_and_fw_migrate_enables_it(dynamo_endpoint: str) -> None:
    settings = dynamo_settings(dynamo_endpoint)
    store = DynamoStore.open(settings)
    try:
        await create_table_without_ttl(settings)
        with pytest.raises(StartupError) as refused:
            await store.require(["revocations"])
        assert "no TTL" in str(refused.value) and "fw migrate" in str(refused.value)
        lines = await create_table(settings)
        assert any("enabled TTL" in line for line in lines)
        await store.require(["revocations"])
    finally:
        await store.close()


async def test_an_unreachable_server_is_a_startup_error(closed_loopback_url: str) -> None:
    store = DynamoStore.open(dynamo_settings(closed_loopback_url))
    try:
        with pytest.raises(StartupError) as refused:
            await store.require(["accounts"])
    finally:
        await store.close()
    assert refused.value.key == "auth.backend"
    assert "cannot be reached" in str(refused.value)


async def test_migrating_twice_leaves_the_table_as_it_is(dynamo_endpoint: str) -> None:
    settings = dynamo_settings(dynamo_endpoint)
    first = await create_table(settings)
    assert first[0] == f"created DynamoDB table {table_name(settings)}"
    assert await create_table(settings) == [f"DynamoDB table {table_name(settings)} is up to date"]


@pytest.fixture
def dynamo_config(
    tmp_path: Path, dynamo_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[str]]:
    """A project whose configuration names the dynamo backend, as ``fw migrate`` reads it."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\n')
    prefix = f"fw_cli_{secrets.token_hex(4)}_"
    path = tmp_path / "config.toml"
    path.write_text(
        f'[auth]\nenabled = true\nbackend = "dynamo"\n\n'
        f'[middleware.rdb]\ndsn = "sqlite:///{tmp_path / "cli.sqlite3"}"\n\n'
        f'[middleware.dynamo]\nregion = "us-east-1"\nendpoint_url = "{dynamo_endpoint}"\n'
        f'table_prefix = "{prefix}"\n'
    )
    configuration.reset()
    registered = {r.cls for r in configuration.registry.state().configs.values()}
    tables = ((RdbSettings, "middleware.rdb"), (DynamoSettings, "middleware.dynamo"), (AuthSettings, "auth"))
    for cls, prefix_key in tables:
        if cls not in registered:
            configuration.register_config(cls, prefix_key)
    monkeypatch.chdir(tmp_path)
    yield ["--project", str(tmp_path), "migrate", "--config-path", str(path), prefix]
    configuration.reset()


def test_fw_migrate_creates_the_table_with_ttl_when_auth_backend_is_dynamo(
    dynamo_config: list[str], dynamo_endpoint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    *command, prefix = dynamo_config
    assert fw_command(command) == 0
    settings = dynamo_settings(dynamo_endpoint, prefix)
    assert f"created DynamoDB table {table_name(settings)}" in capsys.readouterr().out

    async def required() -> None:
        store = DynamoStore.open(settings)
        try:
            await store.require(["accounts", "sessions"])
        finally:
            await store.close()

    asyncio.run(required())


def _refusing(
    store: DynamoStore, operation: str, code: str, reasons: list[dict[str, str]] | None = None
) -> None:
    """Make every ``operation`` of the store's client answer HTTP 400 with ``code``."""

    class Answer:
        status_code = 400

    def answer(**_: Any) -> tuple[Any, dict[str, Any]]:
        parsed: dict[str, Any] = {"Error": {"Code": code, "Message": "refused by the test"}}
        if reasons is not None:
            parsed["CancellationReasons"] = reasons
        return Answer(), parsed

    client = store.table._client
    assert client is not None
    client.meta.events.register(f"before-call.dynamodb.{operation}", answer)


@pytest.fixture
async def dynamo_store(dynamo_endpoint: str) -> Any:
    settings = dynamo_settings(dynamo_endpoint)
    await create_table(settings)
    store = DynamoStore.open(settings)
    await store.require(["accounts"])  # opens the client
    yield store
    await store.close()


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ThrottlingException"])
async def test_throttling_is_store_unavailable_a_503_problem(dynamo_store: DynamoStore, code: str) -> None:
    _refusing(dynamo_store, "GetItem", code)
    with pytest.raises(StoreUnavailable) as failed:
        await dynamo_store.sessions().load("A" * 43)
    response = fw.write_problem(None, failed.value)
    assert response.status_code == 503 and b'"code":"unavailable"' in response.body


async def _redeemed_bootstrap(dynamo_store: DynamoStore) -> tuple[str, str]:
    """A new account whose bootstrap credential was just redeemed: (account ID, login ID)."""
    account = await dynamo_store.accounts.resolve(AccountLink("i", secrets.token_hex(4)), create=True)
    assert account is not None
    now = datetime.now(UTC)
    login = f"login-{secrets.token_hex(4)}"
    record = BootstrapRecord(
        login, account.account_id, "initial_passkey", b"d", now, now + timedelta(hours=1), 5
    )
    await dynamo_store.bootstrap.create(record)
    assert await dynamo_store.bootstrap.redeem(login, now + timedelta(minutes=10))
    return account.account_id, login


async def test_a_transaction_conflicting_on_every_try_is_store_unavailable_and_writes_nothing(
    dynamo_store: DynamoStore,
) -> None:
    account_id, login = await _redeemed_bootstrap(dynamo_store)
    conflict = [{"Code": "None"}, {"Code": "TransactionConflict"}]
    _refusing(dynamo_store, "TransactWriteItems", "TransactionCanceledException", conflict)
    first = credential(account_id)
    with pytest.raises(StoreUnavailable):
        await dynamo_store.bootstrap.enroll(login, first)
    assert await dynamo_store.passkeys.get(first.credential_id) is None
    left = await dynamo_store.bootstrap.get(login)
    assert left is not None and left.redeemed


async def test_sessions_on_dynamo_with_auth_elsewhere_open_their_own_client(dynamo_endpoint: str) -> None:
    settings = dynamo_settings(dynamo_endpoint)
    await create_table(settings)
    middleware = middleware_settings(dynamo=settings)
    sessions = open_session_store(SessionSettings(True, "dynamo", "", SessionKeyring("")), None, middleware)
    try:
        await sessions.check()
        value = await sessions.save({"account_id": "a"}, datetime.now(UTC).timestamp() + 60)
        assert await sessions.load(value) == {"account_id": "a"}
    finally:
        await sessions.close()


async def test_rdb_sessions_next_to_a_dynamo_auth_store_are_refused(dynamo_store: DynamoStore) -> None:
    with pytest.raises(StartupError) as refused:
        open_session_store(
            SessionSettings(True, "rdb", "", SessionKeyring("")), dynamo_store, middleware_settings()
        )
    assert refused.value.key == "session.backend"
    assert "use dynamo" in str(refused.value)


def _counting(store: DynamoStore, operation: str, code: str, failures: int) -> list[int]:
    """Answer the first ``failures`` ``operation`` calls with ``code``; the list counts every call."""
    calls: list[int] = []

    class Answer:
        status_code = 400

    def answer(**_: Any) -> tuple[Any, dict[str, Any]] | None:
        calls.append(1)
        if len(calls) > failures:
            return None  # on to the server
        return Answer(), {"Error": {"Code": code, "Message": "refused by the test"}}

    client = store.table._client
    assert client is not None
    client.meta.events.register(f"before-call.dynamodb.{operation}", answer)
    return calls


#: How a call the deadline ended reads (:meth:`fw.auth.stores.dynamo.DynamoTable.call`).
_DEADLINE_PASSED = f"no answer within {dynamo._DEADLINE} s"


def _sends(client: Any, operation: str) -> list[int]:
    """Count every HTTP request of ``operation`` the client sends (one per attempt, whoever
    retries); the requests still go out."""
    sent: list[int] = []

    def count(**_: Any) -> None:
        sent.append(1)

    client.meta.events.register(f"before-send.dynamodb.{operation}", count)
    return sent


async def test_a_throttled_call_is_tried_again_and_then_answers(dynamo_store: DynamoStore) -> None:
    sessions = dynamo_store.sessions()
    value = await sessions.save({"account_id": "a"}, datetime.now(UTC).timestamp() + 60)
    calls = _counting(dynamo_store, "GetItem", "ProvisionedThroughputExceededException", failures=2)
    assert await sessions.load(value) == {"account_id": "a"}
    assert len(calls) == 3


async def test_throttling_that_persists_gives_up_after_three_attempts_within_the_deadline(
    dynamo_store: DynamoStore,
) -> None:
    calls = _counting(dynamo_store, "GetItem", "ThrottlingException", failures=100)
    with pytest.raises(StoreUnavailable) as failed:
        await dynamo_store.sessions().load("A" * 43)
    assert len(calls) == dynamo._TRANSIENT_TRIES == 3
    # It gave up on the third throttling answer, before the deadline would have ended it.
    assert "ThrottlingException" in str(failed.value)
    assert _DEADLINE_PASSED not in str(failed.value)


async def test_an_endpoint_nobody_listens_on_fails_at_once_rather_than_after_client_retries(
    closed_loopback_url: str, dynamo_endpoint: str
) -> None:
    store = DynamoStore.open(dynamo_settings(closed_loopback_url))
    try:
        sends = _sends(await store.table.client(), "GetItem")
        with pytest.raises(StoreUnavailable) as failed:
            await store.sessions().load("A" * 43)
    finally:
        await store.close()
    # fw's three attempts, each one request (the client's own retries, with their backoff, are
    # off), given up on the refused connection long before the deadline.
    assert len(sends) == dynamo._TRANSIENT_TRIES == 3
    assert "Could not connect" in str(failed.value)
    assert _DEADLINE_PASSED not in str(failed.value)


async def test_a_server_that_accepts_but_never_answers_fails_by_the_deadline(dynamo_endpoint: str) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections complete in the kernel; nothing is ever read or answered
    port = silent.getsockname()[1]
    store = DynamoStore.open(dynamo_settings(f"http://127.0.0.1:{port}"))
    try:
        await store.table.client()  # built first: the deadline bounds the call, not loading botocore's models
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as failed:
            await store.sessions().load("A" * 43)
        elapsed = time.monotonic() - started
    finally:
        await store.close()
        silent.close()
    # The deadline ended it (three attempts at the read timeout each would take twice as long).
    assert str(failed.value) == f"DynamoDB get_item: {_DEADLINE_PASSED}"
    assert elapsed < dynamo._TRANSIENT_TRIES * dynamo._READ_TIMEOUT  # a generous bound


async def test_a_throttled_first_enrollment_writes_nothing(dynamo_store: DynamoStore) -> None:
    account_id, login = await _redeemed_bootstrap(dynamo_store)
    calls = _counting(dynamo_store, "TransactWriteItems", "ProvisionedThroughputExceededException", 100)
    first = credential(account_id)
    with pytest.raises(StoreUnavailable):
        await dynamo_store.bootstrap.enroll(login, first)
    assert len(calls) == 3
    assert await dynamo_store.passkeys.get(first.credential_id) is None
    assert await dynamo_store.passkeys.by_account(account_id) == []
    left = await dynamo_store.bootstrap.get(login)
    assert left is not None and left.redeemed
