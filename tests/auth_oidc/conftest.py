"""Fixtures for browser login tests: a development provider, a migrated database (or every
``auth.backend`` engine), an App and its client."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from backends import StoreBackend

from auth_oidc.support import open_browser
from fw.auth.modes.oidc_only import OidcOnly
from fw.testing import BrowserClient, TestIdentityProvider

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


@pytest.fixture
def store_browser(idp: TestIdentityProvider, store_backend: StoreBackend) -> Iterator[Build]:
    """As ``browser``, once per ``auth.backend`` engine (SQLite, PostgreSQL, DynamoDB, Firestore),
    which keeps the accounts, the allow-list and the sessions."""
    with contextlib.ExitStack() as stack:

        def build(**changes: Any) -> tuple[BrowserClient, OidcOnly]:
            return stack.enter_context(open_browser(idp, store_backend, **changes))

        yield build
