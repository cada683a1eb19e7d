"""What every ``oauth_only`` test checks after a sign-in: accounts, sessions, the token's absence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from fw.testing import BrowserClient, TestOAuthProvider


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
