"""Backend selection: the one place ``auth.backend`` and ``session.backend`` become stores.

A value fw cannot serve (a backend the specification names but this build lacks, or anything
unknown) is a startup error naming the key and the value, never a silent fallback; a backend
whose optional dependency is missing names the ``pip install`` that adds it. A new engine joins
by adding its module and one branch here. Each engine's module (and its driver: SQLAlchemy,
aiobotocore, the Datastore client, redis) is imported by its branch, only when it is selected.

Where each engine lives (``[middleware.rdb]``, ``[middleware.dynamo]``, ``[middleware.firestore]``)
arrives resolved, as one :class:`~fw.settings.MiddlewareSettings` the auth factory read once;
nothing here reads the configuration.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fw.auth.stores.cookie import CookieSessions
from fw.auth.stores.interfaces import AuthStore, SessionStore
from fw.auth.stores.records import RecordKind
from fw.errors import StartupError
from fw.extras import require_extra
from fw.settings import (
    DynamoSettings,
    FirestoreSettings,
    MiddlewareSettings,
    RdbSettings,
    SessionSettings,
)

AUTH_BACKENDS = ("rdb", "dynamo", "firestore")
SESSION_BACKENDS = ("rdb", "cookie", "redis", "dynamo", "firestore")


def _refusal(backend: str, served: Sequence[str]) -> str:
    choices = served[0] if len(served) == 1 else "one of " + ", ".join(served)
    return f"not a backend fw knows; use {choices}"


def check_auth_backend(backend: str) -> None:
    """Refuse an ``auth.backend`` value fw cannot serve, or whose extra is not installed."""
    if backend not in AUTH_BACKENDS:
        raise StartupError("auth.backend", backend, _refusal(backend, AUTH_BACKENDS))
    if backend in ("dynamo", "firestore"):
        require_extra(backend, "auth.backend", backend, f"the {backend} backend")


def check_session_backend(backend: str) -> None:
    """Refuse a ``session.backend`` value fw cannot serve, or whose extra is not installed."""
    if backend not in SESSION_BACKENDS:
        raise StartupError("session.backend", backend, _refusal(backend, SESSION_BACKENDS))
    if backend == "redis":
        require_extra("redis", "session.backend", backend, "the redis session backend")
    if backend in ("dynamo", "firestore"):
        require_extra(backend, "session.backend", backend, f"the {backend} session backend")


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


def _open(backend: str, middleware: MiddlewareSettings) -> AuthStore:
    if backend == "dynamo":
        from fw.auth.stores.dynamo import DynamoStore

        return DynamoStore.open(middleware.dynamo)
    if backend == "firestore":
        from fw.auth.stores.firestore import FirestoreStore

        return FirestoreStore.open(middleware.firestore)
    from fw.auth.stores.rdb import RdbStore

    return RdbStore.open(middleware.rdb.dsn, middleware.rdb.pool_size)


async def open_auth_store(
    backend: str, middleware: MiddlewareSettings, kinds: Iterable[RecordKind]
) -> AuthStore:
    """The store ``auth.backend`` names, refusing to start unless each kind of record has its place.

    ``middleware`` says where each engine lives: ``rdb`` opens ``middleware.rdb.dsn``,
    ``dynamo`` and ``firestore`` their own tables of it.
    """
    check_auth_backend(backend)
    store = _open(backend, middleware)
    try:
        await store.require(kinds)
    except BaseException:
        await store.close()
        raise
    return store


def open_session_store(
    settings: SessionSettings, auth_store: AuthStore | None, middleware: MiddlewareSettings
) -> SessionStore:
    """The store ``session.backend`` names; ``rdb`` keeps sessions in the ``auth.backend`` store, and
    so do ``dynamo`` and ``firestore`` when ``auth.backend`` is the same engine (one client)."""
    backend = settings.backend
    check_session_backend(backend)
    if backend == "cookie":
        return CookieSessions(settings.keyring.secret)
    if backend == "redis":
        from fw.auth.stores.redis import RedisSessions

        if not settings.redis_url:
            raise StartupError("session.redis_url", "", "the redis backend needs a Redis URL")
        return RedisSessions(settings.redis_url)
    if backend == "dynamo":
        if auth_store is not None and auth_store.name == "dynamo":
            return auth_store.sessions()
        from fw.auth.stores.dynamo import session_store

        return session_store(middleware.dynamo)
    if backend == "firestore":
        if auth_store is not None and auth_store.name == "firestore":
            return auth_store.sessions()
        from fw.auth.stores.firestore import open_firestore_sessions

        return open_firestore_sessions(middleware.firestore)
    if auth_store is None:
        raise StartupError("session.backend", backend, "the rdb backend needs [middleware.rdb] dsn")
    if auth_store.name != "rdb":
        raise StartupError(
            "session.backend", backend, f"rdb sessions need auth.backend = rdb; use {auth_store.name}"
        )
    return auth_store.sessions()
