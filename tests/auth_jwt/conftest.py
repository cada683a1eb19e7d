"""Fixtures for bearer-token tests: a local issuer, migrated SQLite and PostgreSQL stores, every
``auth.backend`` engine (``store``), a client."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx2
import pytest
from backends import StoreBackend
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

import fw
import fw.auth
from fw.auth.modes.jwt_only import JwtOnly
from fw.auth.settings import AuthSettings
from fw.auth.stores.select import middleware_settings
from fw.core.middleware import Pipeline
from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer

_PG_DATABASE = f"fw_test_jwt_{os.getpid()}"
_pg_created: list[str] = []


@pytest.fixture
def issuer() -> Iterator[LocalIssuer]:
    with LocalIssuer() as running:
        yield running


@pytest.fixture
def sqlite_store(tmp_path: Path) -> str:
    """A migrated SQLite file of this test's own."""
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    asyncio.run(upgrade(dsn))
    return dsn


async def _create_pg_database(admin_dsn: str) -> str:
    import asyncpg

    parts = urlsplit(admin_dsn)
    if not _pg_created:
        conn = await asyncpg.connect(admin_dsn)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{_PG_DATABASE}"')
            await conn.execute(f'CREATE DATABASE "{_PG_DATABASE}"')
        finally:
            await conn.close()
        dsn = urlunsplit((parts.scheme, parts.netloc, f"/{_PG_DATABASE}", "", ""))
        await upgrade(dsn)
        _pg_created.append(admin_dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{_PG_DATABASE}", "", ""))


@pytest.fixture
def pg_store(postgres_dsn: str) -> str:
    """A database of its own for this test session (created once, dropped at the end)."""
    return asyncio.run(_create_pg_database(postgres_dsn))


@pytest.fixture(scope="session", autouse=True)
def _drop_pg_database() -> Iterator[None]:
    yield
    if not _pg_created:
        return

    async def drop() -> None:
        import asyncpg

        conn = await asyncpg.connect(_pg_created[0])
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{_PG_DATABASE}" WITH (FORCE)')
        finally:
            await conn.close()

    asyncio.run(drop())


@pytest.fixture(params=["sqlite", "postgresql"])
def rdb_store(request: pytest.FixtureRequest) -> str:
    """A test of the relational tables runs on the embedded SQLite store and on the real PostgreSQL."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("sqlite_store"))
    return str(request.getfixturevalue("pg_store"))


@pytest.fixture
def store(store_backend: StoreBackend) -> StoreBackend:
    """A store-backed test runs on every ``auth.backend`` engine: SQLite, PostgreSQL, DynamoDB, Firestore."""
    return store_backend


async def _me(request: Request) -> JSONResponse:
    caller = fw.auth.bearer(request)
    result = fw.request_authentication(request)
    return JSONResponse(
        {
            "account_id": caller.account_id if caller else None,
            "claims": dict(caller.identity.claims) if caller else None,
            "method": result.method if result else None,
        }
    )


def jwt_only(
    auth: AuthSettings, store: StoreBackend | str, *, app: object | None = None, cooldown: float = 30.0
) -> JwtOnly:
    """The extension as the factory builds it, with ``auth.backend`` naming ``store``'s engine."""
    if isinstance(store, str):
        return JwtOnly(auth, middleware_settings(store), app=app, jwks_refetch_cooldown=cooldown)
    return JwtOnly(store.auth(auth), store.middleware, app=app, jwks_refetch_cooldown=cooldown)


def echo_sockets(extension: JwtOnly, *paths: str) -> Starlette:
    """Websockets at ``paths`` that greet with ``hello``, behind the extension (started by the lifespan)."""

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("hello")
        await websocket.close()

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await extension.startup()
        yield
        await extension.shutdown()

    return Starlette(
        routes=[WebSocketRoute(path, echo) for path in paths],
        middleware=[Middleware(Pipeline, middleware=extension.middleware())],
        lifespan=lifespan,
    )


def api(extension: JwtOnly) -> Starlette:
    routes = [Route("/api/me", _me), Route("/public", _me), Route("/api/open/page", _me)]
    return Starlette(routes=routes, middleware=[Middleware(Pipeline, middleware=extension.middleware())])


@contextlib.asynccontextmanager
async def serving(
    auth: AuthSettings,
    store: StoreBackend | str = "sqlite:///unused.sqlite3",
    *,
    app: object | None = None,
    cooldown: float = 30.0,
) -> AsyncIterator[tuple[httpx2.AsyncClient, JwtOnly]]:
    """Start the jwt_only extension on ``store`` (an engine under test, or an rdb DSN), for ``app``
    where one is named, and talk to a small API through it."""
    extension = jwt_only(auth, store, app=app, cooldown=cooldown)
    await extension.startup()
    try:
        transport = httpx2.ASGITransport(app=api(extension))
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client, extension
    finally:
        await extension.shutdown()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
