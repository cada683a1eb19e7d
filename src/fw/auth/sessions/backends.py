"""Choose the session backend named by ``session.backend``."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from fw.auth.sessions.cookie import CookieStore
from fw.auth.sessions.store import SessionStore
from fw.errors import StartupError
from fw.settings import SessionSettings

BACKENDS = ("rdb", "cookie", "redis")
_CHOICES = "one of " + ", ".join(BACKENDS)


def open_store(settings: SessionSettings, engine: AsyncEngine | None) -> SessionStore:
    """The configured backend; ``engine`` is the ``[middleware.rdb]`` engine (needed by ``rdb``)."""
    backend = settings.backend
    if backend == "rdb":
        from fw.auth.sessions.rdb import RdbStore

        if engine is None:
            raise StartupError("session.backend", backend, "the rdb backend needs [middleware.rdb] dsn")
        return RdbStore(engine)
    if backend == "cookie":
        return CookieStore(settings.keyring.secret)
    if backend == "redis":
        from fw.auth.sessions.redis import RedisStore

        if not settings.redis_url:
            raise StartupError("session.redis_url", "", "the redis backend needs a Redis URL")
        return RedisStore(settings.redis_url)
    if backend in ("dynamo", "firestore"):
        raise StartupError("session.backend", backend, f"this build has no {backend} backend; use {_CHOICES}")
    raise StartupError("session.backend", backend, f"use {_CHOICES}")
