"""Backend selection: the one place ``auth.backend`` and ``session.backend`` become stores.

A value fw cannot serve (a backend the specification names but this build lacks, or anything
unknown) is a startup error naming the key and the value, never a silent fallback; a backend
whose optional dependency is missing names the ``pip install`` that adds it. A new engine joins
by adding its module and one branch here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fw.auth.stores.cookie import CookieSessions
from fw.auth.stores.interfaces import AuthStore, SessionStore
from fw.auth.stores.rdb import RdbStore
from fw.auth.stores.records import RecordKind
from fw.errors import StartupError
from fw.extras import require_extra
from fw.settings import DynamoSettings, FirestoreSettings, MiddlewareSettings, SessionSettings

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


def configured_dynamo() -> DynamoSettings:
    """``[middleware.dynamo]`` from the parsed configuration (its defaults when not registered)."""
    from fw.configuration import config

    try:
        return config(MiddlewareSettings).dynamo
    except LookupError:
        return DynamoSettings(region="", endpoint_url="", table_prefix="fw_")


def configured_firestore() -> FirestoreSettings:
    """``[middleware.firestore]`` from the parsed configuration (unset: the defaults)."""
    from fw.configuration import config

    try:
        return config(MiddlewareSettings).firestore
    except LookupError:
        return FirestoreSettings("", "", "")


def _open(backend: str, dsn: str) -> AuthStore:
    if backend == "dynamo":
        from fw.auth.stores.dynamo import DynamoStore

        return DynamoStore.open(configured_dynamo())
    if backend == "firestore":
        from fw.auth.stores.firestore import FirestoreStore

        return FirestoreStore.open(configured_firestore())
    return RdbStore.open(dsn)


async def open_auth_store(backend: str, dsn: str, kinds: Iterable[RecordKind]) -> AuthStore:
    """The store ``auth.backend`` names, refusing to start unless each kind of record has its place.

    ``dsn`` is ``[middleware.rdb] dsn`` (used by ``rdb``); ``dynamo`` and ``firestore`` read
    ``[middleware.dynamo]`` and ``[middleware.firestore]``.
    """
    check_auth_backend(backend)
    store = _open(backend, dsn)
    try:
        await store.require(kinds)
    except BaseException:
        await store.close()
        raise
    return store


def open_session_store(settings: SessionSettings, auth_store: AuthStore | None) -> SessionStore:
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

        return session_store(configured_dynamo())
    if backend == "firestore":
        if auth_store is not None and auth_store.name == "firestore":
            return auth_store.sessions()
        from fw.auth.stores.firestore import open_firestore_sessions

        return open_firestore_sessions(configured_firestore())
    if auth_store is None:
        raise StartupError("session.backend", backend, "the rdb backend needs [middleware.rdb] dsn")
    if auth_store.name != "rdb":
        raise StartupError(
            "session.backend", backend, f"rdb sessions need auth.backend = rdb; use {auth_store.name}"
        )
    return auth_store.sessions()
