"""A fault of the server while the browser session middleware resolves a session (a bug, a failure
no store mapped to "unavailable") is the App's 500 problem: never a 401 and never a sign-in
redirect, either of which tells the person their session is gone when nothing is wrong with it."""

from __future__ import annotations

import logging

import pytest

from auth_oidc.support import layers, login_extension, make_app
from fw.auth.sessions.manager import SESSION_COOKIE
from fw.testing import BrowserClient, TestIdentityProvider, configured


@pytest.mark.parametrize("path", ["/me", "/private/page"])
def test_an_unexpected_error_while_resolving_a_session_is_a_500_problem_and_the_session_survives_it(
    idp: TestIdentityProvider,
    sqlite_dsn: str,
    path: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = layers(idp.issuer, sqlite_dsn, client_id=idp.client_id, client_secret=idp.client_secret)
    with configured(**settings):
        app = make_app()
        with BrowserClient(app, idp, raise_server_exceptions=False) as client:
            assert client.login("alice").status_code == 200
            store = login_extension(app).store

            async def broken(value: str) -> None:
                raise RuntimeError("a bug in a session store")

            monkeypatch.setattr(store, "load", broken)
            with caplog.at_level(logging.ERROR):
                failed = client.get(path, follow_redirects=False)
            monkeypatch.undo()
            after = client.get("/me")
    assert failed.status_code == 500
    assert failed.headers["content-type"] == "application/problem+json"
    assert failed.json()["code"] == "internal_error" and "a bug" not in failed.text
    assert "location" not in failed.headers and "www-authenticate" not in failed.headers
    assert SESSION_COOKIE not in failed.headers.get("set-cookie", "")  # the cookie is not expired
    assert any(r.exc_info and isinstance(r.exc_info[1], RuntimeError) for r in caplog.records)
    assert after.json()["signed_in"] is True
