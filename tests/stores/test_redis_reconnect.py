"""The Redis session store after Redis dropped its connections (a restart, a failover, a kill).

A pooled connection the server closed fails when next used; the store sends that command again,
once, on a fresh connection, so the first requests after Redis returns are served, not 503.
"""

from __future__ import annotations

import asyncio
import secrets
import time

from redis import asyncio as aioredis

from fw.auth.stores.redis import RedisSessions


async def _client_ids(admin: aioredis.Redis) -> set[int]:
    return {int(client["id"]) for client in await admin.client_list()}


async def test_sessions_are_read_at_once_after_redis_closed_every_pooled_connection(redis_url: str) -> None:
    admin = aioredis.from_url(redis_url)
    store = RedisSessions(redis_url, prefix=f"fw-test-reconnect:{secrets.token_hex(4)}:")
    try:
        before = await _client_ids(admin)
        token = await store.save({"account_id": "a1"}, time.time() + 600)
        await asyncio.gather(*(store.load(token) for _ in range(20)))  # a pool of several connections
        ours = await _client_ids(admin) - before
        assert len(ours) > 1
        for client_id in ours:  # what a Redis restart does to each of them
            await admin.client_kill_filter(_id=client_id)
        answers = await asyncio.gather(*(store.load(token) for _ in range(20)), return_exceptions=True)
        assert answers == [{"account_id": "a1"}] * 20
        await store.delete(token)
        assert await store.load(token) is None
    finally:
        await store.close()
        await admin.aclose()
