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
from fw.settings import FirestoreSettings, MiddlewareSettings, SessionSettings

AUTH_BACKENDS = ("rdb", "firestore")
SESSION_BACKENDS = ("rdb", "cookie", "redis", "firestore")
#: Backends the specification names that this build of fw does not serve yet.
PLANNED = ("dynamo",)


def _refusal(backend: str, served: Sequence[str]) -> str:
    choices = served[0] if len(served) == 1 else "one of " + ", ".join(served)
    if backend in PLANNED:
        return f"this build of fw has no {backend} backend; use {choices}"
    return f"not a backend fw knows; use {choices}"


def check_auth_backend(backend: str) -> None:
    """Refuse an ``auth.backend`` value fw cannot serve."""
    if backend not in AUTH_BACKENDS:
        raise StartupError("auth.backend", backend, _refusal(backend, AUTH_BACKENDS))


def check_session_backend(backend: str) -> None:
    """Refuse a ``session.backend`` value fw cannot serve, or whose extra is not installed."""
    if backend not in SESSION_BACKENDS:
        raise StartupError("session.backend", backend, _refusal(backend, SESSION_BACKENDS))
    if backend == "redis":
        require_extra("redis", "session.backend", backend, "the redis session backend")
    if backend == "firestore":
        require_extra("firestore", "session.backend", backend, "the firestore session backend")


def configured_firestore() -> FirestoreSettings:
    """``[middleware.firestore]`` from the parsed configuration (unset: the defaults)."""
    from fw.configuration import config

    try:
        return config(MiddlewareSettings).firestore
    except LookupError:
        return FirestoreSettings("", "", "")


async def open_auth_store(backend: str, dsn: str, kinds: Iterable[RecordKind]) -> AuthStore:
    """The store ``auth.backend`` names, refusing to start unless each kind of record has its place.

    ``dsn`` is ``[middleware.rdb] dsn`` (used by ``rdb``); ``firestore`` reads ``[middleware.firestore]``.
    """
    check_auth_backend(backend)
    store: AuthStore
    if backend == "firestore":
        require_extra("firestore", "auth.backend", backend, "the firestore backend")
        from fw.auth.stores.firestore import FirestoreStore

        store = FirestoreStore.open(configured_firestore())
    else:
        store = RdbStore.open(dsn)
    try:
        await store.require(kinds)
    except BaseException:
        await store.close()
        raise
    return store


def open_session_store(settings: SessionSettings, auth_store: AuthStore | None) -> SessionStore:
    """The store ``session.backend`` names; ``rdb`` keeps sessions in the ``auth.backend`` store, and
    so does ``firestore`` when it is also the ``auth.backend`` (else it opens a client of its own)."""
    backend = settings.backend
    check_session_backend(backend)
    if backend == "cookie":
        return CookieSessions(settings.keyring.secret)
    if backend == "redis":
        from fw.auth.stores.redis import RedisSessions

        if not settings.redis_url:
            raise StartupError("session.redis_url", "", "the redis backend needs a Redis URL")
        return RedisSessions(settings.redis_url)
    if backend == "firestore":
        if auth_store is not None and auth_store.name == "firestore":
            return auth_store.sessions()
        from fw.auth.stores.firestore import open_firestore_sessions

        return open_firestore_sessions(configured_firestore())
    if auth_store is None:
        raise StartupError("session.backend", backend, "the rdb backend needs [middleware.rdb] dsn")
    return auth_store.sessions()
