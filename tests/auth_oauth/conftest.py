"""Fixtures for ``oauth_only``: the X stand-in, and apps configured against it the way a project is."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from auth_oidc.support import session_settings, to_toml

import fw
from auth_oauth.standin import CLIENT_ID, CLIENT_SECRET, StandIn, running_standin
from fw.testing import BrowserClient, configured


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with running_standin() as running:
        yield running


def oauth_layers(
    standin: StandIn, dsn: str, *, oauth: dict[str, Any] | None = None, **auth: Any
) -> dict[str, Any]:
    """``configured(**...)`` arguments for a working ``oauth_only`` app with these changes."""
    table: dict[str, Any] = {"provider": "x", "client_id": CLIENT_ID, "allow_loopback_http": True}
    table.update(standin.endpoints)
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
    return {"toml": to_toml(tables), "env": {"AUTH_OAUTH_CLIENT_SECRET": CLIENT_SECRET}}


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
def browser(standin: StandIn, sqlite_dsn: str) -> Iterator[Any]:
    """``browser(oauth={...}, **auth)``: a browser-like client on an ``oauth_only`` app (lifespan on)."""
    with contextlib.ExitStack() as stack:

        def build(**changes: Any) -> BrowserClient:
            stack.enter_context(configured(**oauth_layers(standin, sqlite_dsn, **changes)))
            return stack.enter_context(BrowserClient(make_app(), standin.origin))

        yield build
