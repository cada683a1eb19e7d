"""Revocation lists for bearer tokens (``jwt_only``): by token (``jti``) and by subject (``iat``).

Entries are scoped by issuer and live ``max_token_lifetime`` after their stamp, after which
every token they could reject has expired anyway, so the store drops them. The check runs after
verification; with ``max_propagation_delay`` > 0 answers are cached in-process for that long.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime, timedelta

from fw.auth.jwt.verifier import VerifiedToken
from fw.auth.runtime import auth_for_call
from fw.auth.settings import AuthSettings
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import RevocationStore
from fw.auth.stores.records import RevocationEntries, RevocationKind

logger = logging.getLogger("fw.auth.revocation")

CACHE_ENTRIES = 10_000


class RevocationCheck:
    """The per-request question "is this verified token revoked?" for one mode and policy."""

    def __init__(
        self,
        store: RevocationStore,
        mode: str,
        *,
        on_unavailable: str = "refuse",
        max_propagation_delay: timedelta = timedelta(0),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.by_token = mode in ("token", "both")
        self.by_subject = mode in ("subject", "both")
        self.admit_when_unavailable = on_unavailable == "admit"
        self._delay = max_propagation_delay.total_seconds()
        self._clock = clock
        self._cache: OrderedDict[tuple[str | None, str | None], tuple[float, RevocationEntries]] = (
            OrderedDict()
        )
        self._last_outage_log = float("-inf")

    def forget(self) -> None:
        """Drop cached answers (a revocation made in this process is visible at once)."""
        self._cache.clear()

    async def revoked(self, token: VerifiedToken) -> bool:
        """True when the token must be refused. Raises :class:`StoreUnavailable` under ``refuse``."""
        if self.by_token and token.token_id is None:
            return True  # a token without jti cannot be looked up, so it cannot be trusted
        key = (token.token_id if self.by_token else None, token.identity if self.by_subject else None)
        entries = self._cached(key)
        if entries is None:
            asked = self._clock()
            try:
                entries = await self.store.lookup(token.issuer, key[0], key[1])
            except StoreUnavailable:
                if not self.admit_when_unavailable:
                    raise
                self._report_outage()
                return False
            self._remember(key, entries, asked)
        if self.by_token and entries.token is not None:
            return True
        return (
            self.by_subject and entries.subject is not None and token.issued_at < entries.subject.timestamp()
        )

    def _cached(self, key: tuple[str | None, str | None]) -> RevocationEntries | None:
        if self._delay <= 0:
            return None
        hit = self._cache.get(key)
        if hit is None:
            return None
        if hit[0] <= self._clock():
            del self._cache[key]
            return None
        return hit[1]

    def _remember(self, key: tuple[str | None, str | None], entries: RevocationEntries, asked: float) -> None:
        """Keep the answer until ``max_propagation_delay`` after the question was asked: the store
        answered as of some moment after ``asked``, so a revocation made before that moment shows
        within the delay however long the answer took to arrive (a busy loop, a slow store)."""
        expires = asked + self._delay
        if self._delay <= 0 or expires <= self._clock():
            return
        self._cache[key] = (expires, entries)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)

    def _report_outage(self) -> None:
        now = self._clock()
        if now - self._last_outage_log >= 60:
            self._last_outage_log = now
            logger.error(
                "revocation store unavailable; admitting tokens without the revocation check "
                "(auth.jwt.revocation.on_unavailable = admit)"
            )


# Programmatic operations: on the running App's store (``app=`` names one), or on the configured
# store from a script. A write through this process drops its cache, so it is visible at once.


def _lifetime(auth: AuthSettings | None) -> timedelta:
    if auth is None:
        raise RuntimeError("auth.jwt.max_token_lifetime is not configured; parse the configuration first")
    lifetime = auth.jwt.max_token_lifetime
    if lifetime <= timedelta(0):
        raise RuntimeError("auth.jwt.max_token_lifetime must be set to a positive duration")
    return lifetime


async def _put(issuer: str, kind: RevocationKind, key: str, note: str, app: object | None) -> None:
    _require(issuer, key)
    async with auth_for_call(app) as running:
        await running.store.revocations.put(issuer, kind, key, note, _lifetime(running.auth))
        running.revocations_changed()


async def _remove(issuer: str, kind: RevocationKind, key: str, app: object | None) -> None:
    _require(issuer, key)
    async with auth_for_call(app) as running:
        await running.store.revocations.remove(issuer, kind, key)
        running.revocations_changed()


async def _read(
    issuer: str, kind: RevocationKind, key: str, app: object | None
) -> tuple[bool, datetime | None]:
    _require(issuer, key)
    async with auth_for_call(app) as running:
        stamp = await running.store.revocations.stamp(issuer, kind, key)
    return stamp is not None, stamp


def _require(issuer: str, key: str) -> None:
    if not issuer or not key:
        raise ValueError("revocation needs a non-empty issuer and identifier")


async def revoke_token(issuer: str, token_id: str, note: str = "", *, app: object | None = None) -> None:
    """Reject the token with this ``jti`` from now on (succeeds for identifiers never seen)."""
    await _put(issuer, "token", token_id, note, app)


async def revoke_subject(
    issuer: str, identity_key: str, note: str = "", *, app: object | None = None
) -> None:
    """Reject every token of this identity issued before now; tokens issued later pass."""
    await _put(issuer, "subject", identity_key, note, app)


async def reinstate_token(issuer: str, token_id: str, *, app: object | None = None) -> None:
    """Delete the token's entry; an unexpired token it rejected passes again."""
    await _remove(issuer, "token", token_id, app)


async def reinstate_subject(issuer: str, identity_key: str, *, app: object | None = None) -> None:
    """Delete the subject's entry."""
    await _remove(issuer, "subject", identity_key, app)


async def token_revoked(
    issuer: str, token_id: str, *, app: object | None = None
) -> tuple[bool, datetime | None]:
    """(revoked, stamp) straight from the store, bypassing the per-request cache."""
    return await _read(issuer, "token", token_id, app)


async def subject_revoked(
    issuer: str, identity_key: str, *, app: object | None = None
) -> tuple[bool, datetime | None]:
    """(revoked, stamp) straight from the store, bypassing the per-request cache."""
    return await _read(issuer, "subject", identity_key, app)
