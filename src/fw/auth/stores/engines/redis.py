"""``redis``: sessions in Redis at ``session.redis_url`` (:mod:`fw.auth.stores.redis`, the redis extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.errors import StartupError

if TYPE_CHECKING:
    from fw.auth.stores.interfaces import SessionStore


def open_redis_sessions(settings: StoreSettings) -> SessionStore:
    from fw.auth.stores.redis import RedisSessions

    url = settings.session.redis_url if settings.session is not None else ""
    if not url:
        raise StartupError("session.redis_url", "", "the redis backend needs a Redis URL")
    return RedisSessions(url)


REDIS = StoreEngine(
    name="redis",
    open_sessions=open_redis_sessions,
    extra="redis",
    extras={"redis": "redis"},
    scaffold=StoreScaffold(offered=True, test_variable="TEST_REDIS_URL"),
)
