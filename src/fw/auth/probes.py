"""The readiness probes of fw's authentication modes: what each opened, asked one cheap question.

Every mode offers them as :class:`fw.extension.Ready` (``readiness_probes``); ``/readyz``
(:mod:`fw.operations.probes`) asks every started extension, and reads nothing of a mode. The
probes reach what the mode opened at startup (the SQLAlchemy engine, the Redis client, the
DynamoDB client, the Datastore client, the key cache, the provider), never a connection of
their own: readiness answers for the pool the requests use. Each asks the cheapest question its
backend has:

========================  ===========================================================
check                     question
========================  ===========================================================
``postgresql``/``sqlite`` ``SELECT 1`` on a connection of the store's engine
``redis``                 ``PING`` on the session store's client
``dynamodb``              ``DescribeTable`` of fw's table (one attempt)
``firestore``             a lookup of a key that does not exist (one attempt)
``jwks``                  ``jwt_only``: the issuer's signing keys are loaded
``provider``              ``oidc_only``/``oidc_passkey``: the discovery document was loaded
========================  ===========================================================

A check is named by what it asks, never by where that lives: no DSN, host, URL or secret is in
a name or an outcome. Nothing here imports a driver at module level: every object probed was
made by the store that loaded its driver.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from fw.extension import NOT_LOADED, NOT_STARTED, NotReady, Probe

if TYPE_CHECKING:
    from fw.auth.oidc import Provider
    from fw.auth.tokens.jwks import JwksCache

#: Least seconds between two fetches a readiness request may cause at an identity provider or
#: token issuer (the endpoint is public: a flood of probes must not become a flood there).
FETCH_COOLDOWN = 5.0


@dataclass(eq=False)
class Pacing:
    """What a mode's outbound probes remember between readiness requests."""

    #: When each outbound check may fetch again (monotonic seconds), by check name.
    next_fetch: dict[str, float] = field(default_factory=dict)
    #: Providers whose discovery document was loaded once (readiness stops asking them).
    discovered: weakref.WeakSet[object] = field(default_factory=weakref.WeakSet)
    clock: Callable[[], float] = time.monotonic

    def may_fetch(self, name: str) -> bool:
        """Whether ``name`` may fetch now; if so, the next fetch waits :data:`FETCH_COOLDOWN`."""
        now = self.clock()
        if now < self.next_fetch.get(name, float("-inf")):
            return False
        self.next_fetch[name] = now + FETCH_COOLDOWN
        return True


def store_probes(*stores: object) -> list[Probe]:
    """The probes of the auth and session stores a mode opened (``None`` for one it did not)."""
    return [probe for store in stores if (probe := store_probe(store)) is not None]


def store_probe(store: object) -> Probe | None:
    """The probe of an auth or session store by its backend; ``None`` for a store that keeps
    nothing server-side (``cookie``), or none. The probe names the client it asks, so a client
    the auth store and the sessions share is asked once."""
    kind = getattr(store, "name", None)
    client: Any
    if kind == "rdb":
        client = getattr(store, "engine", None)
        dialect = getattr(getattr(client, "dialect", None), "name", "")
        name = "postgresql" if dialect == "postgresql" else "sqlite"
    elif kind == "redis":
        client, name = store, "redis"
    elif kind == "dynamo":
        client, name = getattr(store, "table", None), "dynamodb"
    elif kind == "firestore":
        # FirestoreStore keeps its client wrapper as ``datastore``, its sessions as ``store``.
        client, name = getattr(store, "datastore", None) or getattr(store, "store", None), "firestore"
    else:
        return None
    if client is None:
        return None
    return Probe(name, partial(_ASK[name], client), asks=client)


async def _select_one(engine: Any) -> None:
    """``SELECT 1`` on a connection of the store's engine (autocommit on PostgreSQL: no BEGIN)."""
    from sqlalchemy import text

    from fw.rdb.engine import reader

    async with reader(engine).connect() as connection:
        await connection.execute(text("SELECT 1"))


async def _describe_table(table: Any) -> None:
    """``DescribeTable`` of fw's table through the store's client, one attempt, no retries."""
    client = await table.client()
    await client.describe_table(TableName=table.name)


#: A lookup readiness makes in Firestore: a key fw never writes, so the answer is always empty.
_LOOKUP_KIND, _LOOKUP_NAME = "FwReadiness", "probe"


async def _lookup(datastore: Any) -> None:
    """A lookup on the store's Datastore client, one attempt, bounded by :data:`LOOKUP_SECONDS`."""
    from google.api_core.retry import Retry, if_exception_type

    client = datastore.client
    once = Retry(predicate=if_exception_type())  # one attempt: readiness asks again itself
    key = client.key(_LOOKUP_KIND, _LOOKUP_NAME)
    await asyncio.to_thread(client.get, key, retry=once, timeout=LOOKUP_SECONDS)


#: The Datastore call's own deadline: its worker thread ends soon after readiness stops waiting.
LOOKUP_SECONDS = 1.5


async def _ping(sessions: Any) -> None:
    """``PING`` through the Redis session store's own check (its client, its bound)."""
    await sessions.check()


#: The question each store check asks, given the client it asks.
_ASK: dict[str, Callable[[Any], Awaitable[None]]] = {
    "postgresql": _select_one,
    "sqlite": _select_one,
    "redis": _ping,
    "dynamodb": _describe_table,
    "firestore": _lookup,
}


def jwks_probe(keys: Callable[[], JwksCache | None], pacing: Pacing) -> Probe:
    """``jwks``: the key cache ``keys`` returns (``None`` until the mode started) holds a key."""
    return Probe("jwks", partial(_jwks_loaded, keys, pacing))


async def _jwks_loaded(keys: Callable[[], JwksCache | None], pacing: Pacing) -> None:
    """``jwt_only``'s signing keys: started, with at least one key. A key set that holds none
    (the issuer published none fw can use) is fetched again, at most every :data:`FETCH_COOLDOWN`."""
    jwks = keys()
    if jwks is None:
        raise NotReady(NOT_LOADED)
    if len(jwks.keys):
        return
    if not pacing.may_fetch("jwks"):
        raise NotReady(NOT_LOADED)
    try:
        await jwks.refresh()
    except Exception:
        raise NotReady(NOT_LOADED) from None
    if not len(jwks.keys):
        raise NotReady(NOT_LOADED)


def provider_probe(provider: Callable[[], Provider | None], pacing: Pacing) -> Probe:
    """``provider``: the discovery document of the provider ``provider`` returns (``None`` until
    the mode started) was loaded."""
    return Probe("provider", partial(_provider_discovered, provider, pacing))


async def _provider_discovered(started: Callable[[], Provider | None], pacing: Pacing) -> None:
    """The provider's discovery document was loaded once (fetched now if it never was).

    Once loaded, readiness stops asking: sign-ins fetch it again when it ages, and a provider's
    outage is theirs to report; taking every instance out of service would not help anyone.
    """
    provider = started()
    if provider is None:
        raise NotReady(NOT_STARTED)
    if provider in pacing.discovered:
        return
    if not pacing.may_fetch("provider"):
        raise NotReady(NOT_LOADED)
    try:
        await provider.metadata()
    except Exception:
        raise NotReady(NOT_LOADED) from None
    pacing.discovered.add(provider)
