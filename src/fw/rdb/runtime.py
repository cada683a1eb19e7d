"""The engine a running App uses, so programmatic calls (revoke, allow) share its pool.

An async engine belongs to the event loop that opened its connections; a call made from
another loop (a management script, a test) gets a short-lived engine of its own instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncEngine

from fw.rdb.engine import create_engine

_active: list[tuple[asyncio.AbstractEventLoop, AsyncEngine]] = []


def register(engine: AsyncEngine) -> None:
    _active.append((asyncio.get_running_loop(), engine))


def unregister(engine: AsyncEngine) -> None:
    _active[:] = [(loop, e) for loop, e in _active if e is not engine]


def active_engine() -> AsyncEngine | None:
    loop = asyncio.get_running_loop()
    for owner, engine in reversed(_active):
        if owner is loop:
            return engine
    return None


@contextlib.asynccontextmanager
async def engine_for_call(dsn: str | None = None) -> AsyncIterator[AsyncEngine]:
    """The running App's engine in this loop, or a temporary one for ``dsn`` (default: configured)."""
    engine = active_engine() if dsn is None else None
    if engine is not None:
        yield engine
        return
    from fw.rdb.migrate import configured_dsn

    temporary = create_engine(dsn or configured_dsn())
    try:
        yield temporary
    finally:
        await temporary.dispose()
