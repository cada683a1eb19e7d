"""Callbacks that do not belong to a sign-in this browser started sign no one in."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2

from auth_oauth.conftest import make_app
from auth_oauth.support import accounts, assert_signed_out
from fw.testing import BrowserClient, TestOAuthProvider


def _callback_url(client: BrowserClient) -> str:
    """Go to the provider and stop before the callback: its URL as the provider sent it."""
    sent = client.get("/auth/login", follow_redirects=False)
    back = client.get(sent.headers["location"], follow_redirects=False)
    return str(back.headers["location"])


def _failed(answer: httpx2.Response) -> None:
    assert answer.status_code == 400 and answer.json()["code"] == "login_failed"


def test_a_tampered_state_is_refused(browser: Any, sqlite_dsn: str) -> None:
    client = browser()
    url = _callback_url(client)
    state = parse_qs(urlsplit(url).query)["state"][0]
    _failed(client.get(url.replace(state, state[:-2] + "xx"), follow_redirects=False))
    assert_signed_out(client, sqlite_dsn)


def test_a_replayed_callback_is_refused(browser: Any, sqlite_dsn: str) -> None:
    client = browser()
    url = _callback_url(client)
    assert client.get(url, follow_redirects=False).status_code == 303
    client.logout()
    _failed(client.get(url, follow_redirects=False))
    assert_signed_out(client, sqlite_dsn)


def test_a_callback_in_another_browser_is_refused(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str
) -> None:
    url = _callback_url(browser())
    with BrowserClient(make_app(), x) as other:
        answer = other.get(url, follow_redirects=False)
        _failed(answer)
        assert "no sign-in is in progress" in answer.json()["detail"]
        assert_signed_out(other, sqlite_dsn)
    assert accounts(sqlite_dsn) == []


def test_a_callback_without_a_code_is_refused(browser: Any, sqlite_dsn: str) -> None:
    client = browser()
    url = _callback_url(client)
    state = parse_qs(urlsplit(url).query)["state"][0]
    _failed(client.get("/auth/callback", params={"state": state}, follow_redirects=False))
    assert_signed_out(client, sqlite_dsn)
