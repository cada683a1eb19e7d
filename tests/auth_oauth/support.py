"""What every ``oauth_only`` test checks after a sign-in: accounts, sessions, the token's absence."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from auth_oidc.support import session_settings, to_toml

from fw.testing import BrowserClient, TestOAuthProvider


def x_table(x: TestOAuthProvider) -> dict[str, Any]:
    """The ``[auth.oauth]`` table of a project signing in at this X stand-in."""
    return {
        "provider": "x",
        "client_id": x.client_id,
        "allow_loopback_http": True,
        "authorization_endpoint": x.authorization_endpoint,
        "token_endpoint": x.token_endpoint,
        "user_endpoint": x.user_endpoint,
    }


def oauth_layers(
    x: TestOAuthProvider, dsn: str, *, oauth: dict[str, Any] | None = None, **auth: Any
) -> dict[str, Any]:
    """``configured(**...)`` arguments for a working ``oauth_only`` app with these changes."""
    table = {**x_table(x), **(oauth or {})}
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


def database_file(dsn: str) -> Path:
    return Path(dsn.removeprefix("sqlite:///"))


def accounts(dsn: str) -> list[tuple[str, str]]:
    """The account links (issuer, claim value) the database holds."""
    with sqlite3.connect(database_file(dsn)) as db:
        return [(row[0], row[1]) for row in db.execute("select issuer, claim_value from fw_accounts")]


def sessions(dsn: str) -> int:
    """Sessions in the database (the row holding the login-state key is not one)."""
    with sqlite3.connect(database_file(dsn)) as db:
        return int(db.execute("select count(*) from fw_sessions where account_id != ''").fetchone()[0])


def assert_no_token_kept(x: TestOAuthProvider, dsn: str, caplog: pytest.LogCaptureFixture) -> None:
    """No access token the stand-in issued is in the logs or anywhere in the database's files."""
    files = [path.read_bytes() for path in database_file(dsn).parent.glob(f"{database_file(dsn).name}*")]
    for token in x.issued_tokens:
        assert token not in caplog.text
        assert all(token.encode() not in content for content in files)


def assert_signed_out(client: BrowserClient, dsn: str) -> None:
    assert client.get("/me").json() == {"signed_in": False}
    assert not client.cookies.get("fw_session")
    assert sessions(dsn) == 0
