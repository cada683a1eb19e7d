"""The key sealing sign-ins in progress stays the same in every process, even after the session
store lost it.

Each "process" here is its own Redis connection and its own sealer, on a key prefix of the
test's own; the store "loses" the key by a ``DEL`` of that one key (the Redis ``FLUSHALL`` between
real worker processes is tested in ``tests/e2e/test_sign_in_key_agreement.py``).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import AsyncIterator

import pytest
from redis import asyncio as aioredis

from fw.auth.browser.login_keys import AgreedLoginStates
from fw.auth.browser.login_state import LoginAttempt, LoginStates
from fw.auth.stores.redis import RedisSessions
from fw.auth.stores.tokens import SHARED_KEY_ID
from fw.problems import Problem


def attempt(state: str = "s") -> LoginAttempt:
    return LoginAttempt(state, "n", "v" * 43, "http://localhost/auth/callback", "/", time.time() + 600)


class AgreedLoginStatesFactory:
    """Starts "processes" sharing one Redis key prefix, as app workers share a session store."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.prefix = f"fw-test-login-keys:{secrets.token_hex(4)}:"
        self.stores: list[RedisSessions] = []

    async def start(self) -> AgreedLoginStates:
        """A process starting: it reads (or creates) the key, as ``open_browser_stores`` does."""
        store = RedisSessions(self.url, prefix=self.prefix)
        self.stores.append(store)
        return AgreedLoginStates(store, await store.shared_key())

    async def lose_key(self) -> None:
        """The store forgets the key (a restart without persistence, an eviction, a flush)."""
        client = aioredis.from_url(self.url)
        try:
            assert await client.delete(f"{self.prefix}{SHARED_KEY_ID}") == 1
        finally:
            await client.aclose()

    async def close(self) -> None:
        for store in self.stores:
            await store.close()


@pytest.fixture
async def workers(redis_url: str) -> AsyncIterator[AgreedLoginStatesFactory]:
    factory = AgreedLoginStatesFactory(redis_url)
    yield factory
    await factory.close()


async def test_a_sign_in_begun_on_one_process_opens_on_another(workers: AgreedLoginStatesFactory) -> None:
    a, b = await workers.start(), await workers.start()
    assert [found.state for found in await b.open(await a.seal([attempt("one")]))] == ["one"]


async def test_a_process_started_after_the_store_lost_the_key_opens_what_an_older_one_seals_next(
    workers: AgreedLoginStatesFactory,
) -> None:
    older = await workers.start()
    await workers.lose_key()
    newer = await workers.start()  # the store holds no key: this process creates another
    sealed = await older.seal([attempt("after")])
    assert [found.state for found in await newer.open(sealed)] == ["after"]


async def test_an_older_process_opens_what_a_process_started_after_the_loss_sealed(
    workers: AgreedLoginStatesFactory,
) -> None:
    older = await workers.start()
    await workers.lose_key()
    newer = await workers.start()
    sealed = await newer.seal([attempt("newer")])
    assert [found.state for found in await older.open(sealed)] == ["newer"]


async def test_sign_ins_under_way_survive_a_loss_noticed_before_any_process_restarts(
    workers: AgreedLoginStatesFactory,
) -> None:
    a, b = await workers.start(), await workers.start()
    under_way = await a.seal([attempt("before")])
    await workers.lose_key()
    await b.seal([attempt("next")])  # b notices first and offers the key it already uses
    assert [found.state for found in await a.open(under_way)] == ["before"]
    assert [found.state for found in await (await workers.start()).open(under_way)] == ["before"]


async def test_a_cookie_no_agreed_key_opens_is_no_sign_in_and_is_logged(
    workers: AgreedLoginStatesFactory, caplog: pytest.LogCaptureFixture
) -> None:
    process = await workers.start()
    forged = LoginStates(secrets.token_bytes(32)).seal([attempt("forged")])  # another deployment's key
    with caplog.at_level(logging.WARNING, logger="fw.auth"):
        assert await process.open(forged) == []
    assert any("fw_login cookie does not open" in record.getMessage() for record in caplog.records)


async def test_no_cookie_at_all_is_no_sign_in_and_nothing_to_log(
    workers: AgreedLoginStatesFactory, caplog: pytest.LogCaptureFixture
) -> None:
    process = await workers.start()
    with caplog.at_level(logging.WARNING, logger="fw.auth"):
        assert await process.open(None) == []
        assert await process.open("") == []
    assert caplog.records == []


async def test_a_session_store_that_cannot_answer_while_sealing_is_a_503() -> None:
    unreachable = RedisSessions("redis://127.0.0.1:1/0")
    try:
        states = AgreedLoginStates(unreachable, secrets.token_bytes(32))
        with pytest.raises(Problem) as refused:
            await states.seal([attempt()])
        assert refused.value.status == 503
    finally:
        await unreachable.close()
