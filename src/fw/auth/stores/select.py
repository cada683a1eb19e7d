"""Backend selection: the one place ``auth.backend`` and ``session.backend`` become stores.

The engines are the store registry's (:mod:`fw.auth.stores.registry`): fw's own and any an
application registered. A value no registered engine serves is a startup error naming the key
and the value, never a silent fallback; an engine whose optional dependency is missing names the
``pip install`` that adds it. Each engine's module (and its driver: SQLAlchemy, aiobotocore, the
Datastore client, redis) is imported by its opener, only when it is selected.

Where each engine lives (``[middleware.rdb]``, ``[middleware.dynamo]``, ``[middleware.firestore]``,
an outside engine's own table) arrives resolved, as one
:class:`~fw.auth.stores.registry.StoreSettings` (or the :class:`~fw.settings.MiddlewareSettings`
it wraps) the auth factory read once; nothing here reads the configuration. Every store is
opened by exactly two calls: ``engine.open_auth(...)`` in :func:`open_auth_store` and
``engine.open_sessions(...)`` in :func:`open_session_store`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

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
from fw.settings import (
    DynamoSettings,
    FirestoreSettings,
    MiddlewareSettings,
    RdbSettings,
    SessionSettings,
)

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
) -> MiddlewareSettings:
    """Resolved store locations from parts; an engine left out gets its configuration defaults."""
    return MiddlewareSettings(
        rdb=RdbSettings(dsn, pool_size),
        dynamo=dynamo or DynamoSettings(region="", endpoint_url="", table_prefix="fw_"),
        firestore=firestore or FirestoreSettings(project="", database="", emulator_host=""),
    )


def store_settings(
    where: MiddlewareSettings | StoreSettings,
    session: SessionSettings | None = None,
    lookup: Callable[[type[Any]], Any] | None = None,
) -> StoreSettings:
    """``where`` as :class:`StoreSettings`, with ``session`` and ``lookup`` where given."""
    if not isinstance(where, StoreSettings):
        return StoreSettings(where, session, lookup)
    if (session is None or where.session is session) and (lookup is None or where.lookup is lookup):
        return where
    return StoreSettings(where.middleware, session or where.session, lookup or where.lookup)


async def open_auth_store(
    backend: str, middleware: MiddlewareSettings | StoreSettings, kinds: Iterable[RecordKind]
) -> AuthStore:
    """The store ``auth.backend`` names, refusing to start unless each kind of record has its place.

    ``middleware`` says where each engine lives: ``rdb`` opens ``middleware.rdb.dsn``,
    ``dynamo`` and ``firestore`` their own tables of it.
    """
    engine = auth_engine(backend)
    assert engine.open_auth is not None  # auth_engine refuses an engine keeping no auth records
    store = instrument_store(engine.open_auth(store_settings(middleware)), backend)
    try:
        await store.require(kinds)
    except BaseException:
        await store.close()
        raise
    return store


def open_session_store(
    settings: SessionSettings, auth_store: AuthStore | None, middleware: MiddlewareSettings | StoreSettings
) -> SessionStore:
    """The store ``session.backend`` names. Sessions on the ``auth.backend`` engine live in that
    store (one client); an engine that keeps sessions only there (``rdb``) needs ``auth.backend``
    to be the same engine."""
    backend = settings.backend
    engine = session_engine(backend)
    if auth_store is not None and auth_store.name == engine.name and engine.keeps_auth:
        return auth_store.sessions()
    if engine.open_sessions is not None:
        return instrument_store(engine.open_sessions(store_settings(middleware, settings)), backend)
    if auth_store is None:
        where = f"[{engine.table}]" if engine.table else "its settings"
        raise StartupError(SESSION_KEY, backend, f"the {backend} backend needs {where} dsn")
    raise StartupError(
        SESSION_KEY, backend, f"{backend} sessions need auth.backend = {backend}; use {auth_store.name}"
    )
