"""Revocation lists through the public functions, on every ``auth.backend`` engine (SQLite,
PostgreSQL, DynamoDB, Firestore) where the behaviour is the store's, on SQLite where it is fw's."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2
import pytest
from backends import StoreBackend
from sqlalchemy import text

import fw
import fw.auth
import fw.auth.admission
from fw.auth import runtime
from fw.auth.jwt.verifier import VerifiedToken
from fw.auth.modes.jwt_only import JwtOnly
from fw.auth.revocation import RevocationCheck
from fw.auth.stores import AuthStore
from fw.auth.stores.rdb import RdbRevocations, RdbStore
from fw.auth.stores.records import RevocationEntries
from fw.errors import StartupError
from fw.rdb import create_engine
from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer

from .conftest import api, bearer, jwt_only, serving
from .settings import auth_settings, jwt_settings, revocation


async def test_a_revoked_token_is_refused_exactly_like_an_expired_one(
    issuer: LocalIssuer, store: StoreBackend
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token")))
    async with serving(settings, store) as (client, _):
        jti = uuid.uuid4().hex
        token = issuer.mint(token_id=jti)
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
        await fw.auth.revoke_token(issuer.url, jti, "leaked in a log")
        revoked = await client.get("/api/me", headers=bearer(token))
        expired = await client.get(
            "/api/me",
            headers=bearer(issuer.mint(issued_at=time.time() - 3000, lifetime=timedelta(minutes=5))),
        )
        other = await client.get("/api/me", headers=bearer(issuer.mint()))
    assert revoked.status_code == expired.status_code == 401
    assert revoked.content == expired.content
    assert revoked.headers["www-authenticate"] == expired.headers["www-authenticate"]
    assert other.status_code == 200


async def test_token_revocation_requires_a_jti(issuer: LocalIssuer, sqlite_store: str) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token")))
    async with serving(settings, sqlite_store) as (client, _):
        response = await client.get("/api/me", headers=bearer(issuer.mint(token_id=None)))
    assert response.status_code == 401


async def test_subject_revocation_rejects_tokens_issued_before_the_stamp_only(
    issuer: LocalIssuer, store: StoreBackend
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("subject")))
    subject = f"user-{uuid.uuid4().hex}"
    async with serving(settings, store) as (client, _):
        old = issuer.mint(subject, issued_at=time.time() - 5)
        await fw.auth.revoke_subject(issuer.url, subject, "lost laptop")
        fresh = issuer.mint(subject, issued_at=time.time() + 2)
        someone_else = issuer.mint(f"other-{uuid.uuid4().hex}", issued_at=time.time() - 5)
        assert (await client.get("/api/me", headers=bearer(old))).status_code == 401
        assert (await client.get("/api/me", headers=bearer(fresh))).status_code == 200
        assert (await client.get("/api/me", headers=bearer(someone_else))).status_code == 200


async def test_both_modes_check_token_and_subject_entries(issuer: LocalIssuer, store: StoreBackend) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("both")))
    subject = f"user-{uuid.uuid4().hex}"
    async with serving(settings, store) as (client, _):
        by_token = issuer.mint(token_id="t-" + uuid.uuid4().hex)
        by_subject = issuer.mint(subject, issued_at=time.time() - 5)
        await fw.auth.revoke_token(issuer.url, by_token and _jti(by_token))
        await fw.auth.revoke_subject(issuer.url, subject)
        assert (await client.get("/api/me", headers=bearer(by_token))).status_code == 401
        assert (await client.get("/api/me", headers=bearer(by_subject))).status_code == 401
        assert (await client.get("/api/me", headers=bearer(issuer.mint()))).status_code == 200


async def test_reinstating_lets_unexpired_tokens_pass_again(issuer: LocalIssuer, store: StoreBackend) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("both")))
    subject = f"user-{uuid.uuid4().hex}"
    jti = uuid.uuid4().hex
    async with serving(settings, store) as (client, _):
        token = issuer.mint(subject, token_id=jti, issued_at=time.time() - 5)
        await fw.auth.revoke_token(issuer.url, jti)
        await fw.auth.revoke_subject(issuer.url, subject)
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401
        await fw.auth.reinstate_token(issuer.url, jti)
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401
        await fw.auth.reinstate_subject(issuer.url, subject)
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200


async def test_entries_are_scoped_by_issuer(issuer: LocalIssuer, store: StoreBackend) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token")))
    jti = uuid.uuid4().hex
    async with serving(settings, store) as (client, _):
        await fw.auth.revoke_token("https://another-issuer.example", jti)
        assert (await client.get("/api/me", headers=bearer(issuer.mint(token_id=jti)))).status_code == 200


async def test_revocation_reads_bypass_the_cache_and_return_the_stamp(
    issuer: LocalIssuer, store: StoreBackend
) -> None:
    settings = auth_settings(
        jwt_settings(issuer.url, revocation=revocation("both", delay=timedelta(minutes=5)))
    )
    jti = "never-seen-" + uuid.uuid4().hex
    async with serving(settings, store):
        assert await fw.auth.token_revoked(issuer.url, jti) == (False, None)
        before = datetime.now(UTC)
        await fw.auth.revoke_token(issuer.url, jti, "operator note")
        revoked, stamp = await fw.auth.token_revoked(issuer.url, jti)
        assert revoked
        assert stamp is not None and before - timedelta(seconds=1) <= stamp <= datetime.now(UTC)
        assert stamp.tzinfo is not None
        await fw.auth.revoke_subject(issuer.url, "never-seen-subject")
        assert (await fw.auth.subject_revoked(issuer.url, "never-seen-subject"))[0]
        await fw.auth.reinstate_subject(issuer.url, "never-seen-subject")
        assert await fw.auth.subject_revoked(issuer.url, "never-seen-subject") == (False, None)


async def test_entries_expire_after_max_token_lifetime(rdb_store: str) -> None:
    engine = create_engine(rdb_store)
    try:
        revocations = RdbRevocations(engine)
        issuer = f"https://issuer-{uuid.uuid4().hex}.example"
        await revocations.put(issuer, "token", "old", "", timedelta(seconds=-1))
        assert await revocations.stamp(issuer, "token", "old") is None
        stamped = await revocations.put(issuer, "token", "new", "", timedelta(hours=1))
        assert await revocations.stamp(issuer, "token", "new") == stamped
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text("SELECT key FROM fw_revocations WHERE issuer = :issuer"), {"issuer": issuer}
                )
            ).all()
        assert [row[0] for row in rows] == ["new"]  # the expired entry was cleaned by the store
    finally:
        await engine.dispose()


async def _revoke_elsewhere(dsn: str, issuer_url: str, jti: str) -> None:
    """Another process revokes the token (a store of its own, not this App's)."""
    engine = create_engine(dsn)
    await RdbRevocations(engine).put(issuer_url, "token", jti, "", timedelta(hours=1))
    await engine.dispose()


async def test_a_revocation_made_elsewhere_may_pass_for_up_to_the_propagation_delay(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    settings = auth_settings(
        jwt_settings(issuer.url, revocation=revocation("token", delay=timedelta(minutes=5)))
    )
    jti = uuid.uuid4().hex
    token = issuer.mint(token_id=jti)
    async with serving(settings, sqlite_store) as (client, _):
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
        await _revoke_elsewhere(sqlite_store, issuer.url, jti)
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200  # cached answer
        await fw.auth.revoke_token(issuer.url, jti)  # through this process: visible at once
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401


async def test_with_zero_delay_the_store_is_read_on_every_request(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token")))
    jti = uuid.uuid4().hex
    token = issuer.mint(token_id=jti)
    async with serving(settings, sqlite_store) as (client, _):
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 200
        await _revoke_elsewhere(sqlite_store, issuer.url, jti)
        assert (await client.get("/api/me", headers=bearer(token))).status_code == 401


async def test_revocation_fails_closed_when_the_store_is_unreachable(
    issuer: LocalIssuer, store: StoreBackend
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token")))
    async with serving(settings, store) as (client, extension), _broken(extension):
        response = await client.get("/api/me", headers=bearer(issuer.mint()))
        anonymous_public = await client.get("/public")
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    assert "errors" not in response.json()
    assert anonymous_public.status_code == 200


async def test_admit_lets_tokens_through_while_the_store_is_down(
    issuer: LocalIssuer, sqlite_store: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token", on_unavailable="admit")))
    async with serving(settings, sqlite_store) as (client, extension), _broken(extension):
        response = await client.get("/api/me", headers=bearer(issuer.mint()))
    assert response.status_code == 200
    assert any(r.levelname == "ERROR" and "admit" in r.getMessage() for r in caplog.records)


async def test_a_missing_revocation_table_is_a_startup_error_naming_fw_migrate(
    issuer: LocalIssuer, tmp_path: object
) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("both")))
    with pytest.raises(StartupError) as refused:
        async with serving(settings, f"sqlite:///{tmp_path}/empty.sqlite3"):
            pass
    assert refused.value.key == "middleware.rdb.dsn"
    assert "fw migrate" in str(refused.value)


async def test_an_unreachable_database_at_startup_is_reported(issuer: LocalIssuer) -> None:
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("both")))
    with pytest.raises(StartupError) as refused:
        async with serving(settings, "postgresql://fw@127.0.0.1:9/nothing"):
            pass
    assert refused.value.key == "middleware.rdb.dsn"
    assert "cannot be reached" in str(refused.value)


async def test_revoking_needs_an_issuer_and_an_identifier() -> None:
    with pytest.raises(ValueError):
        await fw.auth.revoke_token("", "x")
    with pytest.raises(ValueError):
        await fw.auth.revoke_subject("https://issuer.example", "")


def _jti(token: str) -> str:
    import base64
    import json

    payload = token.split(".")[1]
    return str(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["jti"])


@contextlib.asynccontextmanager
async def _broken(extension: object) -> AsyncIterator[None]:
    """Make the running store stop answering, as when its server goes away.

    The running revocation check gets the revocation entries of a store of the same engine aimed at
    a closed loopback port (discard, 9): every read fails with a connection error exactly like an
    outage of that engine.
    """
    from dataclasses import replace

    assert isinstance(extension, JwtOnly)
    assert extension.running is not None and extension.running.revocation is not None
    where = extension.store_settings
    broken: AuthStore
    if extension.auth.backend == "firestore":
        from fw.auth.stores.engines.firestore import FirestoreSettings
        from fw.auth.stores.firestore import FirestoreStore

        broken = FirestoreStore.open(
            replace(where.table(FirestoreSettings), emulator_host="127.0.0.1:9"), patience=0
        )
    elif extension.auth.backend == "dynamo":
        from fw.auth.stores.dynamo import DynamoStore
        from fw.auth.stores.engines.dynamo import DynamoSettings

        broken = DynamoStore.open(replace(where.table(DynamoSettings), endpoint_url="http://127.0.0.1:9"))
    else:
        broken = RdbStore.open("postgresql://fw@127.0.0.1:9/unreachable")
    lent = runtime.find(None)
    assert lent is not None
    working = lent.store
    lent.store = broken
    extension.running.revocation.store = broken.revocations
    try:
        yield
    finally:
        lent.store = working
        await broken.close()


async def test_a_revocation_call_that_cannot_reach_the_store_renders_as_a_503_problem(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    import fw
    from fw.auth.stores import StoreUnavailable

    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token")))
    async with serving(settings, sqlite_store) as (_, extension), _broken(extension):
        with pytest.raises(StoreUnavailable) as failed:
            await fw.auth.revoke_token(issuer.url, "some-jti")
    response = fw.write_problem(None, failed.value)
    assert response.status_code == 503
    assert b"127.0.0.1" not in response.body
    assert b'"code":"unavailable"' in response.body


class _CountingStore(RdbRevocations):
    """A store whose lookups are counted and always answer "no entry"."""

    def __init__(self) -> None:
        self.lookups = 0

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> RevocationEntries:
        self.lookups += 1
        return RevocationEntries(None, None)


def _verified(jti: str) -> VerifiedToken:
    return VerifiedToken(
        claims={}, header={}, issuer="https://i.example", identity="u", token_id=jti, issued_at=0
    )


async def test_the_propagation_cache_is_bounded_and_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    import fw.auth.revocation as module

    monkeypatch.setattr(module, "CACHE_ENTRIES", 3)
    now = [0.0]
    store = _CountingStore()
    check = RevocationCheck(store, "token", max_propagation_delay=timedelta(seconds=10), clock=lambda: now[0])
    for jti in ("a", "b", "c", "d"):
        assert not await check.revoked(_verified(jti))
    assert store.lookups == 4
    assert not await check.revoked(_verified("d"))  # cached
    assert store.lookups == 4
    assert not await check.revoked(_verified("a"))  # evicted: the oldest of four with room for three
    assert store.lookups == 5
    now[0] = 11.0
    assert not await check.revoked(_verified("a"))  # expired after the delay
    assert store.lookups == 6


class _SlowStore(RdbRevocations):
    """Answers as of the moment it is asked, but the answer arrives ``lag`` seconds later."""

    def __init__(self, now: list[float], lag: float) -> None:
        self.now, self.lag, self.lookups = now, lag, 0
        self.revoked_at: float | None = None

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> RevocationEntries:
        self.lookups += 1
        asked = self.now[0]
        self.now[0] += self.lag
        revoked = self.revoked_at is not None and self.revoked_at <= asked
        return RevocationEntries(datetime.now(UTC) if revoked else None, None)


async def test_an_answer_is_cached_for_the_delay_from_when_it_was_asked_not_from_when_it_arrived() -> None:
    now = [0.0]
    store = _SlowStore(now, lag=1.5)
    check = RevocationCheck(store, "token", max_propagation_delay=timedelta(seconds=2), clock=lambda: now[0])
    assert not await check.revoked(_verified("t"))  # asked at 0, arrived at 1.5: "not revoked"
    store.revoked_at = 1.0  # revoked while that answer was on its way
    now[0] = 2.5  # the delay has passed since the question, not since the answer
    assert await check.revoked(_verified("t"))
    assert store.lookups == 2


async def test_an_answer_slower_than_the_delay_is_not_cached() -> None:
    now = [0.0]
    store = _SlowStore(now, lag=3.0)
    check = RevocationCheck(store, "token", max_propagation_delay=timedelta(seconds=2), clock=lambda: now[0])
    assert not await check.revoked(_verified("t"))
    assert not await check.revoked(_verified("t"))
    assert store.lookups == 2


async def test_with_zero_delay_nothing_is_cached() -> None:
    store = _CountingStore()
    check = RevocationCheck(store, "both")
    for _ in range(3):
        assert not await check.revoked(_verified("same"))
    assert store.lookups == 3


@contextlib.asynccontextmanager
async def _running_app(issuer: LocalIssuer, dsn: str) -> AsyncIterator[tuple[httpx2.AsyncClient, fw.App]]:
    """A jwt_only extension started for its own App, as the plugin builds it."""
    app = fw.App()
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("token")))
    async with serving(settings, dsn, app=app) as (client, _):
        yield client, app


async def test_revocation_calls_act_on_the_app_named_by_app(
    issuer: LocalIssuer, sqlite_store: str, tmp_path: Path
) -> None:
    other_store = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    await upgrade(other_store)
    jti = uuid.uuid4().hex
    token = issuer.mint(token_id=jti)
    async with (
        _running_app(issuer, sqlite_store) as (first, first_app),
        _running_app(issuer, other_store) as (second, second_app),
    ):
        await fw.auth.revoke_token(issuer.url, jti, "only the first", app=first_app)
        assert (await fw.auth.token_revoked(issuer.url, jti, app=first_app))[0]
        assert await fw.auth.token_revoked(issuer.url, jti, app=second_app) == (False, None)
        assert (await first.get("/api/me", headers=bearer(token))).status_code == 401
        assert (await second.get("/api/me", headers=bearer(token))).status_code == 200
        await fw.auth.reinstate_token(issuer.url, jti, app=first_app)
        assert (await first.get("/api/me", headers=bearer(token))).status_code == 200


async def test_with_several_apps_running_a_call_without_app_is_refused_naming_the_fix(
    issuer: LocalIssuer, sqlite_store: str, tmp_path: Path
) -> None:
    other_store = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    await upgrade(other_store)
    async with _running_app(issuer, sqlite_store), _running_app(issuer, other_store):
        with pytest.raises(RuntimeError, match=r"several Apps .* pass app="):
            await fw.auth.revoke_token(issuer.url, "some-jti")
        with pytest.raises(RuntimeError, match="pass app="):
            await fw.auth.admission.allow(issuer.url, "sub", "carol")


async def test_a_call_naming_an_app_that_is_not_running_is_refused_naming_the_fix() -> None:
    with pytest.raises(RuntimeError, match="not running; start it first"):
        await fw.auth.revoke_subject("https://issuer.example", "alice", app=fw.App())


async def test_the_allow_list_of_the_app_named_by_app_is_the_one_changed(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    app = fw.App()
    settings = auth_settings(jwt_settings(issuer.url, admission="registered"))
    extension = jwt_only(settings, sqlite_store, app=app)
    await extension.startup()
    try:
        transport = httpx2.ASGITransport(app=api(extension))
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
            await fw.auth.admission.allow(issuer.url, "sub", "erin", app=app)
            assert (await client.get("/api/me", headers=bearer(issuer.mint("erin")))).status_code == 200
            assert await fw.auth.admission.disallow(issuer.url, "sub", "erin", app=app)
            assert (await client.get("/api/me", headers=bearer(issuer.mint("erin")))).status_code == 401
    finally:
        await extension.shutdown()
