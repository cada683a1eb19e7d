"""Fixtures for browser login tests: a development provider, a migrated database, an App and its client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from auth_oidc.support import auth_settings, make_app, oidc_settings, session_settings
from fw.auth import accounts
from fw.auth.modes.oidc_only import BrowserLoginSettings, OidcOnly
from fw.rdb.migrate import upgrade
from fw.settings import RdbSettings, SessionSettings
from fw.testing import BrowserClient, TestIdentityProvider, identity_provider


@pytest.fixture(autouse=True)
def _fresh_account_seams() -> Iterator[None]:
    yield
    accounts.set_account_resolver(None)
    accounts.set_account_lookup(None)
    accounts._last_read.clear()


@pytest.fixture
def sqlite_dsn(tmp_path: Path) -> str:
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    asyncio.run(upgrade(dsn))
    return dsn


@pytest.fixture
def idp() -> Iterator[TestIdentityProvider]:
    with identity_provider() as provider:
        yield provider


Build = Callable[..., tuple[BrowserClient, OidcOnly]]


@contextlib.contextmanager
def open_browser(
    idp: TestIdentityProvider,
    dsn: str,
    *,
    oidc: dict[str, Any] | None = None,
    session: SessionSettings | None = None,
    **auth: Any,
) -> Iterator[tuple[BrowserClient, OidcOnly]]:
    settings = BrowserLoginSettings(
        auth_settings(oidc_settings(idp, **(oidc or {})), **auth),
        session or session_settings(),
        RdbSettings(dsn),
    )
    extension = OidcOnly(settings)
    with BrowserClient(make_app(extension), idp) as client:
        yield client, extension


@pytest.fixture
def browser(idp: TestIdentityProvider, sqlite_dsn: str) -> Iterator[Build]:
    """Build an app from settings changes and open a browser-like client on it (lifespan on)."""
    opened: list[BrowserClient] = []

    def build(
        *, oidc: dict[str, Any] | None = None, session: SessionSettings | None = None, **auth: Any
    ) -> tuple[BrowserClient, OidcOnly]:
        settings = BrowserLoginSettings(
            auth_settings(oidc_settings(idp, **(oidc or {})), **auth),
            session or session_settings(),
            RdbSettings(sqlite_dsn),
        )
        extension = OidcOnly(settings)
        client = BrowserClient(make_app(extension), idp)
        client.__enter__()
        opened.append(client)
        return client, extension

    yield build
    for client in opened:
        client.__exit__(None, None, None)
