"""An issuer's signing keys: the JWKS document parsed once, cached, and refreshed with care.

A token naming an unknown ``kid`` triggers a refetch (so rotation needs no restart), but at
most once per cooldown, so a flood of made-up kids cannot turn the server into a cannon aimed
at the issuer. While the issuer is unreachable the last good key set stays in use.

Where the keys are may itself come from the issuer's metadata: given a locator instead of a URL,
every fetch asks it first, so a ``jwks_uri`` that moved is followed, and a failed fetch can tell
the metadata's keeper to fetch it again (``on_failure``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from joserfc.jwk import ECKey, JWKRegistry, OKPKey, RSAKey

from fw.auth.tokens.algorithms import Key, fits
from fw.auth.tokens.errors import DiscoveryError, MalformedKeySet
from fw.auth.tokens.fetch import fetch_json
from fw.operations.events import jwks_refresh

logger = logging.getLogger("fw.auth.tokens")

#: Where the key set is now: the ``jwks_uri`` of the issuer's current metadata, say.
Locate = Callable[[], Awaitable[str]]


class KeySet:
    """One fetched JWKS, indexed by ``kid``; keys without a ``kid`` are kept apart.

    A ``kid`` published twice (say an RSA and an EC key during a migration) keeps every key
    under it; a token gets the first one whose type and declared ``alg`` fit its algorithm,
    so a duplicate can never make a key serve an algorithm it was not made for.
    """

    def __init__(self, keys: list[Key]) -> None:
        self.by_kid: dict[str, list[Key]] = {}
        self.unnamed: list[Key] = []
        self._found: dict[tuple[str | None, str], Key] = {}
        for key in keys:
            kid = key.kid
            if kid:
                self.by_kid.setdefault(kid, []).append(key)
            else:
                self.unnamed.append(key)

    def find(self, kid: str | None, alg: str) -> Key | None:
        try:
            return self._found[(kid, alg)]
        except KeyError:
            pass
        key = self._find(kid, alg)
        if key is not None:
            self._found[(kid, alg)] = key  # bounded: only (published kid, allowed alg) pairs
        return key

    def _find(self, kid: str | None, alg: str) -> Key | None:
        if kid is not None:
            return next((k for k in self.by_kid.get(kid, ()) if fits(k, alg)), None)
        every = [k for named in self.by_kid.values() for k in named]
        candidates = [k for k in (*every, *self.unnamed) if fits(k, alg)]
        return candidates[0] if len(candidates) == 1 else None

    def __len__(self) -> int:
        return sum(len(named) for named in self.by_kid.values()) + len(self.unnamed)


def parse_jwks(data: dict[str, Any], *, strict: bool = False) -> KeySet:
    """Import the signature keys of a JWKS document.

    Keys of other types or uses are skipped. An entry that cannot be imported is skipped with a
    warning, or, when ``strict``, makes the whole document a :class:`MalformedKeySet`.
    """
    entries = data.get("keys")
    if not isinstance(entries, list):
        raise MalformedKeySet("the JWKS document has no keys array")
    keys: list[Key] = []
    for entry in entries:
        if strict and not isinstance(entry, dict):
            raise MalformedKeySet("the JWKS document has an entry that is not an object")
        if not isinstance(entry, dict) or entry.get("kty") not in ("RSA", "EC", "OKP"):
            continue
        if entry.get("use", "sig") != "sig":
            continue
        ops = entry.get("key_ops")
        if ops is not None and (not isinstance(ops, list) or "verify" not in ops):
            continue
        public = {k: v for k, v in entry.items() if k not in ("d", "p", "q", "dp", "dq", "qi", "oth")}
        try:
            key = JWKRegistry.import_key(public)
        except Exception as error:  # joserfc raises several kinds for a malformed key
            if strict:
                kid = entry.get("kid")
                raise MalformedKeySet(f"unusable key in the JWKS (kid={kid!r}): {error}") from None
            # A malformed entry must not take the good ones down with it.
            logger.warning("skipping an unusable key in the JWKS (kid=%r): %s", entry.get("kid"), error)
            continue
        if isinstance(key, RSAKey | ECKey | OKPKey):
            keys.append(key)
    return KeySet(keys)


class JwksCache:
    """Keys of one issuer, refreshed when stale or when a token names a kid not yet seen.

    ``jwks_uri`` is the URL, or a :data:`Locate` asked before every fetch (``jwks_uri`` then
    holds the URL last asked for). ``max_age`` may be infinite (refresh only for an unknown kid);
    ``strict`` makes one unusable entry spoil the whole document (see :func:`parse_jwks`);
    ``on_failure`` is called whenever a fetch fails.
    """

    def __init__(
        self,
        jwks_uri: str | Locate,
        http: httpx2.AsyncClient,
        *,
        refetch_cooldown: float = 30.0,
        max_age: float = 300.0,
        strict: bool = False,
        clock: Callable[[], float] = time.monotonic,
        on_failure: Callable[[], None] | None = None,
    ) -> None:
        self._locate = None if isinstance(jwks_uri, str) else jwks_uri
        self.jwks_uri = jwks_uri if isinstance(jwks_uri, str) else ""
        self._on_failure = on_failure
        self._http = http
        self._strict = strict
        self._keys = KeySet([])
        self._cooldown = refetch_cooldown
        self._max_age = max_age
        self._clock = clock
        self._stale_at = float("-inf")
        self._unknown_refetch_at = float("-inf")
        self._lock = asyncio.Lock()
        self._generation = 0
        #: Changes only when a fetch brings another key set than the one in use (see version()).
        self._version = 0
        self._published: object = None
        self.fetches = 0
        #: The background refresh in flight, if any (tests await it).
        self.pending_refresh: asyncio.Task[None] | None = None

    async def refresh(self) -> None:
        """Fetch now; raises :class:`DiscoveryError` and keeps the previous keys on failure."""
        async with self._lock:
            await self._fetch()

    async def load(self) -> None:
        """Fetch unless a key set was loaded already; raises like :meth:`refresh`."""
        if self._generation:
            return
        async with self._lock:
            if not self._generation:
                await self._fetch()

    async def _fetch(self) -> None:
        self.fetches += 1
        try:
            if self._locate is not None:
                self.jwks_uri = await self._locate()
            data = await fetch_json(self._http, self.jwks_uri, endpoint="jwks")
            keys = parse_jwks(data, strict=self._strict)
        except DiscoveryError:
            jwks_refresh("error")
            # Retry no sooner than the cooldown, keeping the last good set meanwhile.
            self._stale_at = self._clock() + self._cooldown
            if self._on_failure is not None:
                self._on_failure()
            raise
        jwks_refresh("ok")
        self._keys = keys
        self._stale_at = self._clock() + self._max_age
        self._generation += 1
        published = data.get("keys")
        if published != self._published:
            self._published = published
            self._version += 1

    async def _refetch_quietly(self) -> None:
        seen = self._generation
        async with self._lock:
            if self._generation != seen:
                return  # another request refreshed while this one waited
            try:
                await self._fetch()
            except DiscoveryError as error:
                logger.warning("keeping the last good signing keys: %s", error)

    async def key_for(self, kid: str | None, alg: str) -> Key | None:
        """The key to verify a token with, or ``None`` when the issuer has no such key.

        A stale set is refreshed in the background while its key keeps serving, so a slow or
        unreachable issuer never stalls requests that carry a known ``kid``.
        """
        now = self._clock()
        key = self._keys.find(kid, alg)
        if now >= self._stale_at:
            if key is not None:
                self._refresh_in_background()
                return key
            await self._refetch_quietly()
            key = self._keys.find(kid, alg)
        if key is None and now - self._unknown_refetch_at >= self._cooldown:
            self._unknown_refetch_at = now
            await self._refetch_quietly()
            key = self._keys.find(kid, alg)
        return key

    def fresh_key(self, kid: str | None, alg: str) -> Key | None:
        """The key :meth:`key_for` would answer at once, without awaiting; ``None`` otherwise.

        A fresh set that has the key answers here; anything that needs a refetch or a
        background refresh (a stale set, an unknown ``kid``) is left to :meth:`key_for`.
        """
        if self._clock() >= self._stale_at:
            return None
        return self._keys.find(kid, alg)

    def version(self) -> int:
        """Which key set is in use: a new number whenever a fetch brings different keys.

        What was verified under one version (the verified-token cache) is dropped when it
        changes. Asking also starts the background refresh of a stale set, exactly as a key
        lookup would, so requests that need no lookup still keep the keys fresh.
        """
        if self._clock() >= self._stale_at and self._generation:
            self._refresh_in_background()
        return self._version

    def _refresh_in_background(self) -> None:
        if self.pending_refresh is None or self.pending_refresh.done():
            self.pending_refresh = asyncio.get_running_loop().create_task(self._refetch_quietly())

    async def close(self) -> None:
        """Stop a background refresh still in flight."""
        if self.pending_refresh is not None and not self.pending_refresh.done():
            self.pending_refresh.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.pending_refresh
        self.pending_refresh = None

    @property
    def keys(self) -> KeySet:
        return self._keys
