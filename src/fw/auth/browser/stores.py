"""Opening what every browser mode keeps: the ``auth.backend`` store, the session store and the
key sealing browser-held state, all or nothing.

A mode names the kinds of record it needs (``accounts``, ``passkeys``...); sessions join them
when ``session.backend`` is an engine keeping them in the ``auth.backend`` store (``rdb``). Any
failure refuses the start with nothing left open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fw.auth.sessions.settings import SessionSettings
from fw.auth.stores.engine import StoreSettings
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import AuthStore, SessionStore
from fw.auth.stores.records import RecordKind
from fw.auth.stores.registry import find_store
from fw.auth.stores.select import open_auth_store, open_session_store, store_settings
from fw.errors import StartupError


@dataclass(slots=True)
class BrowserStores:
    """The stores of one started browser mode, closed together."""

    auth: AuthStore
    sessions: SessionStore
    #: 32 bytes every process sharing the session backend agrees on.
    shared_key: bytes

    async def close(self) -> None:
        try:
            await self.sessions.close()
        finally:
            await self.auth.close()


async def open_browser_stores(
    backend: str,
    stores: StoreSettings,
    session: SessionSettings,
    kinds: Iterable[RecordKind],
    lookup: Callable[[type[Any]], Any] | None = None,
) -> BrowserStores:
    """Open ``auth.backend`` (requiring ``kinds``) and ``session.backend``; check both answer.

    ``lookup`` resolves a registered settings class for an engine defined outside fw
    (:attr:`fw.auth.modes.base.ModeSettings.lookup`).
    """
    # Ceremonies: every browser mode keeps the one-use grants of zero-window step-ups there.
    wanted: list[RecordKind] = list(dict.fromkeys([*kinds, "ceremonies"]))
    engine = find_store(session.backend)
    if engine is not None and engine.sessions_in_auth_store:
        wanted.append("sessions")
    where = store_settings(stores, session, lookup)
    auth_store = await open_auth_store(backend, where, wanted)
    store: SessionStore | None = None
    try:
        store = open_session_store(session, auth_store, where)
        await store.check()
        try:
            key = await store.shared_key()
        except StoreUnavailable as error:
            raise StartupError(
                "session.backend", session.backend, f"the session store cannot answer ({error})"
            ) from None
    except BaseException:
        if store is not None:
            await store.close()
        await auth_store.close()
        raise
    return BrowserStores(auth_store, store, key)
