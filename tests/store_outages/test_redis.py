"""Redis, keeping browser sessions, going away under a running App, on a server of the test's own:
killed (SIGKILL: its connections reset, then refused), restarted while it reads its dataset back
(every command answered ``LOADING``, redis-py's ``BusyLoadingError``), and hung (SIGSTOP: the
connection stays open and nothing answers until the client's socket timeout, redis-py's
``TimeoutError``)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from auth_oidc.support import session_settings
from private_servers import PrivateRedis

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.redis import RedisSessions
from fw.testing import TestIdentityProvider

from .support import assert_sessions_refused_as_unavailable, assert_sessions_served_again, browser_app


def test_while_redis_is_killed_or_loading_its_dataset_sessions_get_503_never_a_sign_in_redirect(
    redis_server: PrivateRedis, idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    session = session_settings("redis", redis_url=redis_server.url)
    with browser_app(idp, sqlite_dsn, session=session) as sessions:
        redis_server.save()  # the sessions as they are now, read back when Redis restarts
        redis_server.kill()
        assert_sessions_refused_as_unavailable(sessions)
        redis_server.start()
        assert_sessions_served_again(sessions)

        redis_server.save(extra_keys=100_000)  # enough to read back for minutes at a millisecond a key
        redis_server.kill()
        redis_server.start_loading()
        assert_sessions_refused_as_unavailable(sessions)
        redis_server.finish_loading()
        assert_sessions_served_again(sessions)


def test_while_redis_hangs_a_session_gets_503_after_one_socket_timeout_then_is_served_again(
    redis_server: PrivateRedis, idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    session = session_settings("redis", redis_url=redis_server.url)
    with browser_app(idp, sqlite_dsn, session=session) as sessions:
        redis_server.freeze()
        try:
            started = time.monotonic()
            hung = sessions.me()
            waited = time.monotonic() - started
        finally:
            redis_server.thaw()
        assert (hung.status_code, hung.json()["code"]) == (503, "unavailable")
        # One 5 s socket timeout, not a second one for a resend (a timed-out command is not sent
        # again); the bound leaves a slow machine 4 s of slack.
        assert waited < 9.0
        assert_sessions_served_again(sessions)


RECORD = {"account_id": "a1", "kind": "session"}


@contextlib.asynccontextmanager
async def twelve_sessions(redis_server: PrivateRedis) -> AsyncIterator[tuple[RedisSessions, list[str]]]:
    """A Redis session store on ``redis_server`` holding twelve sessions, closed afterwards."""
    store = RedisSessions(redis_server.url, prefix="fw-test-together:")
    try:
        yield store, [await store.save(dict(RECORD), time.time() + 600) for _ in range(12)]
    finally:
        await store.close()


class TestSessionReadsInFlightTogether:
    """A busy App's session reads go to Redis together (one ``MGET`` a turn of its event loop):
    an outage must reach each of them as it reaches a lone read."""

    async def test_while_redis_hangs_every_read_in_flight_fails_by_the_deadline_then_all_are_served(
        self, redis_server: PrivateRedis
    ) -> None:
        async with twelve_sessions(redis_server) as (store, values):
            redis_server.freeze()
            try:
                started = time.monotonic()
                reads = (store.load(value) for value in values)
                answers = await asyncio.gather(*reads, return_exceptions=True)
                waited = time.monotonic() - started
            finally:
                redis_server.thaw()
            assert all(isinstance(answer, StoreUnavailable) for answer in answers), answers
            assert len({id(answer) for answer in answers}) == len(values)
            assert waited < 9.0  # one 5 s bound (a quarter later at most), slack for a slow machine
            assert await asyncio.gather(*(store.load(value) for value in values)) == [RECORD] * len(values)

    async def test_while_redis_is_killed_every_read_in_flight_is_refused_then_all_are_served(
        self, redis_server: PrivateRedis
    ) -> None:
        async with twelve_sessions(redis_server) as (store, values):
            redis_server.save()
            redis_server.kill()
            answers = await asyncio.gather(*(store.load(value) for value in values), return_exceptions=True)
            assert all(isinstance(answer, StoreUnavailable) for answer in answers), answers
            redis_server.start()
            assert await asyncio.gather(*(store.load(value) for value in values)) == [RECORD] * len(values)
