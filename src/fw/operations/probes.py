"""The readiness probes: one cheap question per store the running App opened, and its keys.

The probes reach what the App's pillars opened at startup (the SQLAlchemy engine, the Redis
client, the DynamoDB client, the Datastore client, the key cache, the provider), never a
connection of their own: readiness answers for the pool the requests use. Each asks the
cheapest question its backend has:

========================  ===========================================================
check                     question
========================  ===========================================================
``postgresql``/``sqlite`` ``SELECT 1`` on a connection of the App's engine
``redis``                 ``PING`` on the session store's client
``dynamodb``              ``DescribeTable`` of fw's table (one attempt)
``firestore``             a lookup of a key that does not exist (one attempt)
``jwks``                  ``jwt_only``: the issuer's signing keys are loaded
``provider``              ``oidc_only``/``oidc_passkey``: the discovery document was loaded
========================  ===========================================================

A check is named by what it asks, never by where that lives: no DSN, host, URL or secret is in
a name or an outcome, and what a failure said is not kept (its type name goes to the log).

Nothing here imports a driver: every object probed was made by the store that loaded its driver.
"""

from __future__ import annotations

import asyncio
import sys
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

#: Outcomes a check reports (``ok`` is the only passing one).
OK = "ok"
UNAVAILABLE = "unavailable"
TIMEOUT = "timeout"
NOT_LOADED = "not_loaded"
NOT_STARTED = "not_started"

#: Least seconds between two fetches a readiness request may cause at an identity provider or
#: token issuer (the endpoint is public: a flood of probes must not become a flood there).
FETCH_COOLDOWN = 5.0


class NotReady(Exception):
    """A check's failure with its outcome (``not_loaded``...), raised by a probe."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


@dataclass(frozen=True, slots=True)
class Probe:
    """One readiness check: ``check`` returns when ready and raises otherwise."""

    name: str
    check: Callable[[], Awaitable[None]]


@dataclass(eq=False)
class Pacing:
    """What the probes remember between readiness requests of one App."""

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


def app_probes(app: object, pacing: Pacing) -> list[Probe]:
    """Every check for what ``app``'s started extensions opened, each backend asked once.

    An extension offering ``readiness_probes()`` (a sequence of :class:`Probe`) is asked for its
    own; fw's authentication modes are read here, from what each one keeps once started.
    """
    probes: dict[str, Probe] = {}
    seen: set[int] = set()  # the clients already probed (sessions often share the auth store's)
    for extension in getattr(app, "extensions", ()) or ():
        offered = getattr(extension, "readiness_probes", None)
        found = list(offered()) if callable(offered) else list(_auth_probes(app, extension, pacing, seen))
        for probe in found:
            name, number = probe.name, 2
            while name in probes:  # two clients of one kind (auth and sessions apart): both asked
                name, number = f"{probe.name}_{number}", number + 1
            probes[name] = Probe(name, probe.check)
    return list(probes.values())


def _auth_probes(app: object, extension: object, pacing: Pacing, seen: set[int]) -> Iterator[Probe]:
    """The probes of one of fw's authentication modes (nothing for any other extension)."""
    if not type(extension).__module__.startswith("fw.auth."):
        return
    mode: Any = extension
    inner = getattr(extension, "oidc", None)
    if hasattr(inner, "startup") and hasattr(inner, "auth_store"):
        mode = inner  # oidc_passkey composes oidc_only, which keeps the stores and the provider
    stores: list[object] = []
    runtime = sys.modules.get("fw.auth.runtime")  # loaded by every mode that opened a store
    if runtime is not None:
        try:
            running = runtime.find(app)
        except RuntimeError:  # this App lent no store: jwt_only without revocation, say
            running = None
        if running is not None:
            stores.append(running.store)
    stores.append(_session_store(mode))
    for store in stores:
        probe = store_probe(store, seen)
        if probe is not None:
            yield probe
    if hasattr(mode, "jwks") and hasattr(mode, "running"):
        yield Probe("jwks", lambda: _jwks_loaded(mode, pacing))
    provider = getattr(type(mode), "provider", None)
    if isinstance(provider, property):  # oidc_only's started provider (oauth_only's X has no discovery)
        yield Probe("provider", lambda: _provider_discovered(mode, pacing))


def _session_store(mode: Any) -> object:
    """The session store a started browser mode opened (``None`` before startup, or none)."""
    stores = getattr(mode, "stores", None)  # oauth_only, passkey_only: their BrowserStores
    if stores is not None:
        return getattr(stores, "sessions", None)
    store = getattr(mode, "store", None)  # oidc_only
    return store if hasattr(store, "shared_key") else None


def store_probe(store: object, seen: set[int]) -> Probe | None:
    """The probe of an auth or session store by its backend; ``None`` for a store that keeps
    nothing server-side (``cookie``) or whose client ``seen`` holds already."""
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
    if client is None or id(client) in seen:
        return None
    seen.add(id(client))
    return Probe(name, partial(_ASK[name], client))


async def _select_one(engine: Any) -> None:
    """``SELECT 1`` on a connection of the App's engine (autocommit on PostgreSQL: no BEGIN)."""
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


async def _jwks_loaded(extension: Any, pacing: Pacing) -> None:
    """``jwt_only``'s signing keys: started, with at least one key. A key set that holds none
    (the issuer published none fw can use) is fetched again, at most every :data:`FETCH_COOLDOWN`."""
    jwks = extension.jwks
    if extension.running is None or jwks is None:
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


async def _provider_discovered(extension: Any, pacing: Pacing) -> None:
    """The provider's discovery document was loaded once (fetched now if it never was).

    Once loaded, readiness stops asking: sign-ins fetch it again when it ages, and a provider's
    outage is theirs to report; taking every instance out of service would not help anyone.
    """
    provider = extension.provider
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
