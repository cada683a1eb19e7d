"""The ``redis`` session backend: one key per session under a prefix, expiring with the session.

Each account, and each mark a session carries, also has a set of its sessions' digests (expiring
with its longest-lived session), so every session of an account or of a provider session can be
destroyed at once. Needs the ``redis`` extra.
"""

from __future__ import annotations

import json
import math
import os
import time

import msgspec
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.gathered import GatheredReads
from fw.auth.stores.tokens import (
    SHARED_KEY_ID,
    Record,
    new_token,
    session_marks,
    token_digest,
    unexpired,
    well_formed,
)
from fw.errors import StartupError
from fw.watchdog import Watchdog

URL_KEY = "session.redis_url"
#: Seconds one command (connecting, sending, the reply) may take before Redis counts as unavailable.
_TIMEOUT = 5.0
_FAILURES = (RedisError, OSError)
#: Reads a stored record on every signed-in request, several times faster than ``json.loads``
#: (bad JSON raises a ``ValueError`` as there).
_DECODE = msgspec.json.Decoder().decode

# Write a session and index it under its account and its marks; an index lives as long as the
# latest session listed in it.
_PUT = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[3])
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
return 1
"""


def _reason(error: BaseException) -> str:
    """What went wrong, in words: a command cut off by :data:`_TIMEOUT` carries none of its own."""
    if isinstance(error, TimeoutError) and not str(error):
        return f"no answer from Redis within {_TIMEOUT:g} s"
    return str(error)


def _text(value: bytes | str) -> str:
    return value.decode("ascii") if isinstance(value, bytes) else value


class RedisSessions:
    name = "redis"

    def __init__(self, url: str, *, prefix: str = "fw:session:") -> None:
        self.url = url
        self.prefix = prefix
        self._client: aioredis.Redis = aioredis.from_url(
            url,
            # Each command is bounded as a whole by :data:`_TIMEOUT` (a Watchdog): with a
            # socket timeout, redis-py would wrap every send in ``asyncio.wait_for``, a task and two
            # more turns of the event loop on each signed-in request.
            socket_timeout=None,
            socket_connect_timeout=_TIMEOUT,
            # A pooled connection that Redis closed (a restart, an idle timeout) fails once when
            # next used: the command is sent again, once, on a new connection. Every command here
            # is idempotent (SET of the same value, GET, DEL, SMEMBERS, SET NX), so the resend is
            # safe; a timeout is not retried (redis-py's Retry would, by default), so a hung
            # server costs one socket timeout.
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        self._put_script = self._client.register_script(_PUT)
        #: Bounds each command by :data:`_TIMEOUT`, one timer for all of them (fw.watchdog).
        self._deadline = Watchdog(_TIMEOUT)
        #: The session reads of one turn of the event loop, sent as one ``MGET`` (the read of
        #: every signed-in request; see fw.auth.stores.gathered).
        self._reads: GatheredReads[bytes | str | None] = GatheredReads(
            self._client.get,
            self._client.mget,
            failures=_FAILURES,
            failure=lambda error: StoreUnavailable(_reason(error)),
            bound=self._deadline,
        )

    def _key(self, token: str) -> str:
        return f"{self.prefix}{token_digest(token)}"

    def _account_key(self, account_id: str) -> str:
        return f"{self.prefix}account:{account_id}"

    def _mark_key(self, mark: str) -> str:
        return f"{self.prefix}mark:{mark}"

    async def _put(self, token: str, record: Record, expires_at: float) -> None:
        ttl_ms = max(1, math.ceil((expires_at - time.time()) * 1000))
        payload = json.dumps({**record, "_exp": expires_at}, separators=(",", ":"))
        account_id = str(record.get("account_id", ""))
        keys = [self._key(token)] + ([self._account_key(account_id)] if account_id else [])
        keys += [self._mark_key(mark) for mark in sorted(session_marks(record))]
        try:
            with self._deadline:
                await self._put_script(keys=keys, args=[payload, ttl_ms, token_digest(token)])
        except _FAILURES as error:
            raise StoreUnavailable(_reason(error)) from None

    async def save(self, record: Record, expires_at: float) -> str:
        token = new_token()
        await self._put(token, record, expires_at)
        return token

    async def load(self, value: str) -> Record | None:
        if not well_formed(value):
            return None
        raw = await self._reads.read(self._key(value))
        if raw is None:
            return None
        try:
            return unexpired(_DECODE(raw))
        except ValueError:
            return None

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        await self._put(value, record, expires_at)
        return value

    async def delete(self, value: str) -> None:
        if not well_formed(value):
            return
        try:
            with self._deadline:
                await self._client.delete(self._key(value))
        except _FAILURES as error:
            raise StoreUnavailable(_reason(error)) from None

    async def delete_account(self, account_id: str) -> int:
        return await self._delete_listed(self._account_key(account_id))

    async def delete_marked(self, mark: str) -> int:
        return await self._delete_listed(self._mark_key(mark))

    async def _delete_listed(self, index: str) -> int:
        """Destroy the sessions a digest set lists, then the set."""
        try:
            with self._deadline:
                digests = await self._client.smembers(index)
            keys = [f"{self.prefix}{_text(digest)}" for digest in digests]
            with self._deadline:
                gone = int(await self._client.delete(*keys)) if keys else 0
            with self._deadline:
                await self._client.delete(index)
        except _FAILURES as error:
            raise StoreUnavailable(_reason(error)) from None
        return gone

    async def shared_key(self, offer: bytes | None = None) -> bytes:
        """``SET NX`` then ``GET``: every process ends up with the first process's key."""
        key = f"{self.prefix}{SHARED_KEY_ID}"
        try:
            with self._deadline:
                await self._client.set(key, offer or os.urandom(32), nx=True)
            with self._deadline:
                value = await self._client.get(key)
        except _FAILURES as error:
            raise StoreUnavailable(_reason(error)) from None
        if not isinstance(value, bytes) or len(value) != 32:
            raise StoreUnavailable(f"the shared key at {key} is not 32 bytes")
        return value

    async def check(self) -> None:
        try:
            with self._deadline:
                await self._client.ping()
        except _FAILURES as error:
            raise StartupError(URL_KEY, self.url, f"Redis cannot be reached ({_reason(error)})") from None

    async def close(self) -> None:
        await self._client.aclose()
