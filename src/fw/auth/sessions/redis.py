"""The ``redis`` backend: one key per session under a prefix, expiring with the session."""

from __future__ import annotations

import json
import math
import os
import time

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from fw.auth.sessions.store import (
    SHARED_KEY_ID,
    Record,
    SessionStoreUnavailable,
    new_token,
    token_digest,
    unexpired,
    well_formed,
)
from fw.errors import StartupError

URL_KEY = "session.redis_url"


class RedisStore:
    name = "redis"

    def __init__(self, url: str, *, prefix: str = "fw:session:") -> None:
        self.url = url
        self.prefix = prefix
        self._client: aioredis.Redis = aioredis.from_url(url, socket_timeout=5, socket_connect_timeout=5)

    def _key(self, token: str) -> str:
        return f"{self.prefix}{token_digest(token)}"

    async def _put(self, token: str, record: Record, expires_at: float) -> None:
        ttl_ms = max(1, math.ceil((expires_at - time.time()) * 1000))
        payload = json.dumps({**record, "_exp": expires_at}, separators=(",", ":"))
        try:
            await self._client.set(self._key(token), payload, px=ttl_ms)
        except (RedisError, OSError) as error:
            raise SessionStoreUnavailable(str(error)) from None

    async def save(self, record: Record, expires_at: float) -> str:
        token = new_token()
        await self._put(token, record, expires_at)
        return token

    async def load(self, value: str) -> Record | None:
        if not well_formed(value):
            return None
        try:
            raw = await self._client.get(self._key(value))
        except (RedisError, OSError) as error:
            raise SessionStoreUnavailable(str(error)) from None
        if raw is None:
            return None
        try:
            return unexpired(json.loads(raw))
        except ValueError:
            return None

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        await self._put(value, record, expires_at)
        return value

    async def delete(self, value: str) -> None:
        if not well_formed(value):
            return
        try:
            await self._client.delete(self._key(value))
        except (RedisError, OSError) as error:
            raise SessionStoreUnavailable(str(error)) from None

    async def shared_key(self) -> bytes:
        """``SET NX`` then ``GET``: every process ends up with the first process's key."""
        key = f"{self.prefix}{SHARED_KEY_ID}"
        try:
            await self._client.set(key, os.urandom(32), nx=True)
            value = await self._client.get(key)
        except (RedisError, OSError) as error:
            raise SessionStoreUnavailable(str(error)) from None
        if not isinstance(value, bytes) or len(value) != 32:
            raise SessionStoreUnavailable(f"the shared key at {key} is not 32 bytes")
        return value

    async def check(self) -> None:
        try:
            await self._client.ping()
        except (RedisError, OSError) as error:
            raise StartupError(URL_KEY, self.url, f"Redis cannot be reached ({error})") from None

    async def close(self) -> None:
        await self._client.aclose()
