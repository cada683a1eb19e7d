"""Fixtures for ``oauth_only``: fw's public X stand-in, and apps configured against it as a project is."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from auth_oidc.support import session_settings, to_toml

import fw
from fw.testing import BrowserClient, TestOAuthProvider, configured, oauth_provider


@pytest.fixture
def x() -> Iterator[TestOAuthProvider]:
    """The stand-in, signing alice in without showing its picker."""
    with oauth_provider(login_user="alice") as running:
        yield running


def oauth_layers(
    x: TestOAuthProvider, dsn: str, *, oauth: dict[str, Any] | None = None, **auth: Any
) -> dict[str, Any]:
    """``configured(**...)`` arguments for a working ``oauth_only`` app with these changes."""
    table: dict[str, Any] = {
        "provider": "x",
        "client_id": x.client_id,
        "allow_loopback_http": True,
        "authorization_endpoint": x.authorization_endpoint,
        "token_endpoint": x.token_endpoint,
        "user_endpoint": x.user_endpoint,
    }
    table.update(oauth or {})
    tables = {
        "auth": {
            "enabled": True,
            "mode": "oauth_only",
            "protection": {"include": ["/private/"]},
            **auth,
            "oauth": table,
        },
        "session": session_settings(),
        "middleware": {"rdb": {"dsn": dsn}},
    }
    return {"toml": to_toml(tables), "env": {"AUTH_OAUTH_CLIENT_SECRET": x.client_secret}}


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
