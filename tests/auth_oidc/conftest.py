"""Fixtures for browser login tests: a development provider, a migrated database, an App and its client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from auth_oidc.support import open_browser
from fw.auth import accounts
from fw.auth.modes.oidc_only import OidcOnly
from fw.rdb.migrate import upgrade
from fw.testing import BrowserClient, TestIdentityProvider, identity_provider


@pytest.fixture(autouse=True)
def _fresh_account_seams() -> Iterator[None]:
    yield
    accounts.set_account_resolver(None)
    accounts.set_account_lookup(None)


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


@pytest.fixture
def browser(idp: TestIdentityProvider, sqlite_dsn: str) -> Iterator[Build]:
    """Build an app from settings changes and open a browser-like client on it (lifespan on).

    ``browser(oidc={...}, session=session_settings(...), **auth)``: each client keeps its
    configuration until the test ends.
    """
    with contextlib.ExitStack() as stack:

        def build(**changes: Any) -> tuple[BrowserClient, OidcOnly]:
            return stack.enter_context(open_browser(idp, sqlite_dsn, **changes))

        yield build
