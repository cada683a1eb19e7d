"""The auth of running Apps, for fw.auth's module-level calls (``revoke_token``, ``allow``, ...).

A started auth extension lends its store to its App until it stops (kept on the App:
:mod:`fw.configuration.owner`). A call acts on the App passed as ``app=``, else on the one
running in the caller's event loop; several there is ambiguous and refused with the fix. With
none running (a management script) the call opens the configured store for itself and closes
it afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from fw.auth.settings import AuthSettings
from fw.auth.stores.engine import StoreSettings
from fw.auth.stores.interfaces import AuthStore
from fw.auth.stores.select import open_auth_store
from fw.configuration.owner import Owned, Slot, every, owned


def _nothing() -> None:
    return None


@dataclass(eq=False)
class RunningAuth:
    """What one started auth extension lends to the module-level calls."""

    #: The App the extension belongs to (``None`` for one started on its own, as tests do).
    app: object | None
    store: AuthStore
    #: The settings the App resolved at start (``None`` when the configuration has no ``[auth]``).
    auth: AuthSettings | None
    #: Called after a revocation was written, so this process sees it at once (drops caches).
    revocations_changed: Callable[[], None] = field(default=_nothing)


#: What one App's started auth lent: (the event loop it started in, what it lent), in start order.
_LENT: Slot[list[tuple[asyncio.AbstractEventLoop, RunningAuth]]] = Slot("running auth", list)
#: What an extension started with no App lent (one started on its own, as tests do).
_ownerless: list[tuple[asyncio.AbstractEventLoop, RunningAuth]] = []


def _lent_by(app: object | None) -> list[tuple[asyncio.AbstractEventLoop, RunningAuth]]:
    return _ownerless if app is None else owned(app).get(_LENT)


def start(running: RunningAuth) -> None:
    _lent_by(running.app).append((asyncio.get_running_loop(), running))


def stop(running: RunningAuth) -> None:
    lent = _lent_by(running.app)
    lent[:] = [entry for entry in lent if entry[1] is not running]


def _everything_lent() -> list[tuple[asyncio.AbstractEventLoop, RunningAuth]]:
    lent: list[tuple[asyncio.AbstractEventLoop, RunningAuth]] = list(_ownerless)
    holders: list[Owned] = every()
    for holder in holders:
        theirs = holder.peek(_LENT)
        if theirs:
            lent.extend(theirs)
    return lent


def find(app: object | None = None) -> RunningAuth | None:
    """The running auth of ``app``, else the only one in this event loop; ``None`` when none runs."""
    loop = asyncio.get_running_loop()
    if app is not None:
        for owner, running in _lent_by(app):
            if owner is not loop:
                raise RuntimeError("the App passed as app= runs in another event loop; call from that loop")
            return running
        raise RuntimeError("the App passed as app= is not running; start it first, or leave out app=")
    here = [running for owner, running in _everything_lent() if owner is loop]
    if len(here) > 1:
        raise RuntimeError("several Apps are running in this event loop; pass app= to say which one")
    return here[0] if here else None


def _configured() -> tuple[AuthSettings | None, StoreSettings]:
    """Outside a running App, the parsed configuration is the only place settings come from; a
    management script that did not call ``fw.parse_config`` gets it read as a started App would."""
    from fw.auth.configured import configured_stores
    from fw.configuration import ensure_parsed, in_force

    ensure_parsed()
    configuration = in_force()
    try:
        auth: AuthSettings | None = configuration.config(AuthSettings)
    except LookupError:
        auth = None
    return auth, configured_stores(configuration)


@contextlib.asynccontextmanager
async def auth_for_call(app: object | None = None) -> AsyncIterator[RunningAuth]:
    """The running auth a call acts on, or a short-lived one on the configured store."""
    running = find(app)
    if running is not None:
        yield running
        return
    auth, where = _configured()
    store = await open_auth_store(auth.backend if auth is not None else "rdb", where, ())
    try:
        yield RunningAuth(None, store, auth)
    finally:
        await store.close()
