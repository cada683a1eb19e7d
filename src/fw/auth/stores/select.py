"""Backend selection: the one place ``auth.backend`` and ``session.backend`` become stores.

The engines are the store registry's (:mod:`fw.auth.stores.registry`): fw's own and any an
application registered. A value no registered engine serves is a startup error naming the key
and the value, never a silent fallback; an engine whose optional dependency is missing names the
``pip install`` that adds it. Each engine's module (and its driver: SQLAlchemy, aiobotocore, the
Datastore client, redis) is imported by its opener, only when it is selected.

Where each engine lives (``[middleware.rdb]``, ``[middleware.dynamo]``, ``[middleware.firestore]``,
an outside engine's own table) arrives resolved, as one
:class:`~fw.auth.stores.registry.StoreSettings` the auth factory read once (each engine's opener
asks it for its own table); nothing here reads the configuration. Every store is
opened by exactly two calls: ``engine.open_auth(...)`` in :func:`open_auth_store` and
``engine.open_sessions(...)`` in :func:`open_session_store`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fw.auth.sessions.settings import SessionSettings
from fw.auth.stores.engines.dynamo import DynamoSettings
from fw.auth.stores.engines.firestore import FirestoreSettings
from fw.auth.stores.engines.rdb import RdbSettings
from fw.auth.stores.interfaces import AuthStore, SessionStore
from fw.auth.stores.records import RecordKind
from fw.auth.stores.registry import (
    SESSION_KEY,
    StoreSettings,
    auth_backends,
    auth_engine,
    session_backends,
    session_engine,
)
from fw.errors import StartupError
from fw.operations.events import instrument_store

__all__ = [
    "auth_backends",
    "check_auth_backend",
    "check_session_backend",
    "middleware_settings",
    "open_auth_store",
    "open_session_store",
    "session_backends",
    "store_settings",
]


def check_auth_backend(backend: str) -> None:
    """Refuse an ``auth.backend`` value no engine serves, or whose extra is not installed."""
    auth_engine(backend)


def check_session_backend(backend: str) -> None:
    """Refuse a ``session.backend`` value no engine serves, or whose extra is not installed."""
    session_engine(backend)


def middleware_settings(
    dsn: str = "sqlite:///fw.sqlite3",
    *,
    dynamo: DynamoSettings | None = None,
    firestore: FirestoreSettings | None = None,
    pool_size: int = 20,
) -> StoreSettings:
    """Resolved locations of fw's own engines from parts (``[middleware.rdb]``, ``.dynamo``,
    ``.firestore``); an engine left out gets its configuration defaults."""
    tables: dict[type[Any], Any] = {
        RdbSettings: RdbSettings(dsn, pool_size),
        DynamoSettings: dynamo or DynamoSettings(region="", endpoint_url="", table_prefix="fw_"),
        FirestoreSettings: firestore or FirestoreSettings(project="", database="", emulator_host=""),
    }

    def lookup(cls: type[Any]) -> Any:
        if cls not in tables:
            raise LookupError(f"{cls.__qualname__}: not one of fw's store tables")
        return tables[cls]

    return StoreSettings(lookup=lookup)


def _first_found(
    first: Callable[[type[Any]], Any], then: Callable[[type[Any]], Any]
) -> Callable[[type[Any]], Any]:
    """A lookup asking ``first``, then ``then`` for a table ``first`` does not hold."""

    def lookup(cls: type[Any]) -> Any:
        try:
            return first(cls)
        except LookupError:
            return then(cls)

    return lookup


def store_settings(
    where: StoreSettings,
    session: SessionSettings | None = None,
    lookup: Callable[[type[Any]], Any] | None = None,
) -> StoreSettings:
    """``where`` with ``session`` where given, and ``lookup`` asked for the tables ``where`` does
    not hold itself."""
    if (session is None or where.session is session) and (lookup is None or where.lookup is lookup):
        return where
    if lookup is not None and where.lookup is not None and where.lookup is not lookup:
        lookup = _first_found(where.lookup, lookup)
    return StoreSettings(session or where.session, lookup or where.lookup)


async def open_auth_store(backend: str, where: StoreSettings, kinds: Iterable[RecordKind]) -> AuthStore:
    """The store ``auth.backend`` names, refusing to start unless each kind of record has its place.

    ``where`` says where each engine lives: each opener reads its own table of it (``rdb``
    opens ``middleware.rdb.dsn``).
    """
    engine = auth_engine(backend)
    assert engine.open_auth is not None  # auth_engine refuses an engine keeping no auth records
    store = instrument_store(engine.open_auth(where), backend)
    try:
        await store.require(kinds)
    except BaseException:
        await store.close()
        raise
    return store


def open_session_store(
    settings: SessionSettings, auth_store: AuthStore | None, where: StoreSettings
) -> SessionStore:
    """The store ``session.backend`` names. Sessions on the ``auth.backend`` engine live in that
    store (one client); an engine that keeps sessions only there (``rdb``) needs ``auth.backend``
    to be the same engine."""
    backend = settings.backend
    engine = session_engine(backend)
    if auth_store is not None and auth_store.name == engine.name and engine.keeps_auth:
        return auth_store.sessions()
    if engine.open_sessions is not None:
        return instrument_store(engine.open_sessions(store_settings(where, settings)), backend)
    if auth_store is None:
        table = f"[{engine.table}]" if engine.table else "its settings"
        raise StartupError(SESSION_KEY, backend, f"the {backend} backend needs {table} dsn")
    raise StartupError(
        SESSION_KEY, backend, f"{backend} sessions need auth.backend = {backend}; use {auth_store.name}"
    )
