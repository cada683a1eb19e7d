"""Assurance in ``oauth_only``: the provider cannot be asked for a re-proof, so confirmations and
zero windows answer 503 (logging the mode) while ``max_age`` is measured from the login time and
an unmet one sends the browser through login again, as the same account."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from auth_assurance.support import policies_toml

import fw
from auth_oauth.support import oauth_layers
from fw.testing import BrowserClient, TestOAuthProvider, configured

POLICIES = ({"name": "fresh", "max_age": "1s", "confirm": False}, {"name": "each_time", "max_age": "0s"})


# Each guarded route is declared for itself, as a project would; they share a route's shape, not code.
def guarded_app() -> fw.App:
    app = fw.App()

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse(
            {"key": user.key if user else None, "auth_time": user.auth_time if user else None}
        )

    @app.route("GET /recent")
    @fw.auth.ensure(fw.auth.max_age(timedelta(seconds=1)))
    async def recent(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "recent"})

    @app.route("GET /fresh")
    @fw.auth.ensure(fw.auth.policy("fresh"))
    async def fresh(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "fresh"})

    @app.route("GET /confirmed")
    @fw.auth.ensure(fw.auth.confirmed(timedelta(minutes=5)))
    async def confirmed(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "confirmed"})

    @app.route("POST /api/once")
    @fw.auth.ensure_api(fw.auth.policy("each_time"))
    async def once(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"done": True})

    @app.route("GET /zero")
    @fw.auth.ensure(fw.auth.max_age(timedelta(0)))
    async def zero(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "zero"})

    return app


@pytest.fixture
def client(x: TestOAuthProvider, sqlite_dsn: str) -> Iterator[BrowserClient]:
    arguments: dict[str, Any] = oauth_layers(x, sqlite_dsn)
    arguments["toml"] += policies_toml(POLICIES)
    with contextlib.ExitStack() as stack:
        stack.enter_context(configured(**arguments))
        browser = stack.enter_context(BrowserClient(guarded_app(), x.origin))
        assert browser.get("/auth/login", params={"next": "/me"}, follow_redirects=True).json()["key"]
        yield browser


@pytest.mark.parametrize(("method", "path"), [("GET", "/confirmed"), ("POST", "/api/once"), ("GET", "/zero")])
def test_confirmations_and_zero_windows_answer_503_and_log_the_mode(
    client: BrowserClient, caplog: pytest.LogCaptureFixture, method: str, path: str
) -> None:
    caplog.set_level(logging.ERROR, logger="fw.auth")
    answer = client.request(method, path, follow_redirects=False)
    assert answer.status_code == 503 and "oauth_only" in answer.json()["detail"]
    assert any("auth.mode = oauth_only" in record.getMessage() for record in caplog.records)


def test_max_age_is_met_by_the_login_itself(client: BrowserClient) -> None:
    assert client.get("/recent").json() == {"page": "recent"}
    assert client.get("/fresh").json() == {"page": "fresh"}


def test_an_unmet_max_age_sends_the_browser_through_login_again(
    client: BrowserClient, x: TestOAuthProvider
) -> None:
    first = client.get("/me").json()["auth_time"]
    time.sleep(2.1)  # the 1 s window is now over
    refused = client.get("/recent", follow_redirects=False)
    assert refused.status_code == 303
    assert refused.headers["location"] == "/auth/login?max_age=1&next=%2Frecent"
    landed = client.get("/recent", follow_redirects=True)
    assert landed.json() == {"page": "recent"} and str(landed.url).endswith("/recent")
    assert client.get("/me").json()["auth_time"] > first
    assert len(x.state.authorizations) == 2


def test_a_login_again_as_another_account_is_refused_and_keeps_the_session(
    client: BrowserClient, x: TestOAuthProvider
) -> None:
    before = client.get("/me").json()
    time.sleep(2.1)
    x.login_user("bob")
    answer = client.get("/recent", follow_redirects=True)
    assert answer.status_code == 403 and answer.json()["code"] == "step_up_failed"
    assert client.get("/me").json() == before
