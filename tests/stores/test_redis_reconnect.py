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
        expires = time.time() + 600
        # Writes in flight together hold a pooled connection each (reads of one turn share one).
        tokens = await asyncio.gather(*(store.save({"account_id": "a1"}, expires) for _ in range(20)))
        ours = await _client_ids(admin) - before
        assert len(ours) > 1
        for client_id in ours:  # what a Redis restart does to each of them
            await admin.client_kill_filter(_id=client_id)
        answers = await asyncio.gather(*(store.load(token) for token in tokens), return_exceptions=True)
        assert answers == [{"account_id": "a1"}] * 20
        for client_id in await _client_ids(admin) - before:
            await admin.client_kill_filter(_id=client_id)
        written = await asyncio.gather(
            *(store.update(token, {"account_id": "a2"}, expires) for token in tokens), return_exceptions=True
        )
        assert written == tokens
        token = tokens[0]
        assert await store.load(token) == {"account_id": "a2"}
        await store.delete(token)
        assert await store.load(token) is None
    finally:
        await store.close()
        await admin.aclose()
