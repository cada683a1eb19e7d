"""Fixtures: the development provider with a guarded App in front of it, one per test."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import fw
from auth_assurance.support import open_guarded
from fw.testing import BrowserClient, TestIdentityProvider

Build = Callable[..., tuple[BrowserClient, fw.App]]


@pytest.fixture
def guarded(idp: TestIdentityProvider, sqlite_dsn: str) -> Iterator[Build]:
    """``guarded(**auth changes)``: a client on the guarded App, kept until the test ends."""
    with contextlib.ExitStack() as stack:

        def build(**changes: Any) -> tuple[BrowserClient, fw.App]:
            return stack.enter_context(open_guarded(idp, sqlite_dsn, **changes))

        yield build


@pytest.fixture
def dsn(sqlite_dsn: str) -> str:
    return sqlite_dsn
