"""Fixtures for ``oauth_only``: fw's public X stand-in, and apps configured against it as a project is."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

import fw
from auth_oauth.support import oauth_layers
from fw.testing import BrowserClient, TestOAuthProvider, configured, oauth_provider


@pytest.fixture
def x() -> Iterator[TestOAuthProvider]:
    """The stand-in, signing alice in without showing its picker."""
    with oauth_provider(login_user="alice") as running:
        yield running


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:
            return fw.JSONResponse({"signed_in": False})
        fields = ("account_id", "display_name", "email", "issuer", "key", "method", "auth_time")
        more = ("provider", "subject", "username", "avatar_url")
        return fw.JSONResponse(
            {"signed_in": True, **{name: getattr(user, name) for name in (*fields, *more)}}
        )

    @app.route("GET /private/{rest...}")
    async def private(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": request.url.path})

    return app


@pytest.fixture
def browser(x: TestOAuthProvider, sqlite_dsn: str) -> Iterator[Any]:
    """``browser(oauth={...}, **auth)``: a browser-like client on an ``oauth_only`` app (lifespan on)."""
    with contextlib.ExitStack() as stack:

        def build(**changes: Any) -> BrowserClient:
            stack.enter_context(configured(**oauth_layers(x, sqlite_dsn, **changes)))
            return stack.enter_context(BrowserClient(make_app(), x))

        yield build
