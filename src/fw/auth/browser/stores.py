"""Opening what every browser mode keeps: the ``auth.backend`` store, the session store and the
key sealing browser-held state, all or nothing.

A mode names the kinds of record it needs (``accounts``, ``passkeys``...); sessions join them
when ``session.backend`` is ``rdb``. Any failure refuses the start with nothing left open.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import AuthStore, SessionStore
from fw.auth.stores.records import RecordKind
from fw.auth.stores.select import open_auth_store, open_session_store
from fw.errors import StartupError
from fw.settings import MiddlewareSettings, SessionSettings


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
    backend: str, middleware: MiddlewareSettings, session: SessionSettings, kinds: Iterable[RecordKind]
) -> BrowserStores:
    """Open ``auth.backend`` (requiring ``kinds``) and ``session.backend``; check both answer."""
    # Ceremonies: every browser mode keeps the one-use grants of zero-window step-ups there.
    wanted: list[RecordKind] = list(dict.fromkeys([*kinds, "ceremonies"]))
    if session.backend == "rdb":
        wanted.append("sessions")
    auth_store = await open_auth_store(backend, middleware, wanted)
    store: SessionStore | None = None
    try:
        store = open_session_store(session, auth_store, middleware)
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
