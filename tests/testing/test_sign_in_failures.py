"""``BrowserClient.login``: a sign-in that signs nobody in raises ``fw.testing.SignInFailed`` with
the status, the final URL and the answer, unless the test asks for the failing response."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest

import fw
import fw.testing
from fw.rdb.migrate import upgrade
from fw.testing import BrowserClient, SignInFailed, TestIdentityProvider

CONFIG = """
[session]
enabled = true

[auth]
enabled = true
mode = "oidc_only"

[auth.oidc]
issuer = "${AUTH_OIDC_ISSUER}"
client_id = "${AUTH_OIDC_CLIENT_ID}"
client_secret = "${AUTH_OIDC_CLIENT_SECRET}"
allow_loopback_http = true
"""

Open = Callable[..., BrowserClient]


def create_app() -> fw.App:
    app = fw.App()

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"signed_in": fw.auth.user(request) is not None})

    return app


@pytest.fixture
def browser(idp: TestIdentityProvider, tmp_path: Path) -> Iterator[Open]:
    """``browser(extra_toml)``: a client on a fresh App configured with ``CONFIG`` plus ``extra_toml``."""
    dsn = f"sqlite:///{tmp_path / 'app.sqlite3'}"
    asyncio.run(upgrade(dsn))
    with contextlib.ExitStack() as stack:

        def open_client(extra: str = "") -> BrowserClient:
            env = {**idp.env, "MIDDLEWARE_RDB_DSN": dsn}
            stack.enter_context(fw.testing.configured(toml=CONFIG + extra, env=env))
            return stack.enter_context(BrowserClient(create_app(), idp))

        yield open_client


REFUSE_EVERYONE = "auto_provision = false\n"  # appended under [auth.oidc]: no account, no sign-in


def test_a_sign_in_that_succeeds_returns_the_landing_page(browser: Open) -> None:
    client = browser()
    landed = client.login("alice", next="/me")
    assert landed.status_code == 200 and landed.json() == {"signed_in": True}


def test_a_sign_in_landing_on_a_page_the_app_lacks_returns_that_page(browser: Open) -> None:
    client = browser()
    landed = client.login("alice")  # auth.post_login_path is "/", which this App does not route
    assert landed.status_code == 404 and landed.url.path == "/"
    assert client.get("/me").json() == {"signed_in": True}


def test_a_refused_sign_in_raises_sign_in_failed_with_the_status_url_and_problem(browser: Open) -> None:
    client = browser(REFUSE_EVERYONE)
    with pytest.raises(SignInFailed) as failed:
        client.login("alice")
    assert failed.value.status == 403
    assert failed.value.url.startswith("http://localhost:8000/auth/callback?")
    assert failed.value.problem is not None and failed.value.problem["status"] == 403
    message = str(failed.value)
    assert "403" in message and "/auth/callback" in message and failed.value.problem["title"] in message
    assert client.get("/me").json() == {"signed_in": False}


def test_allow_failure_returns_the_response_of_a_refused_sign_in(browser: Open) -> None:
    client = browser(REFUSE_EVERYONE)
    refused = client.login("alice", allow_failure=True)
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")


def test_a_sign_in_that_stops_at_the_provider_picker_raises_naming_the_provider(
    browser: Open, idp: TestIdentityProvider
) -> None:
    client = browser()
    with pytest.raises(SignInFailed, match="stopped at the provider") as failed:
        client.login()  # nobody preset: the provider shows its picker and waits for a person
    assert failed.value.status == 200
    assert failed.value.url.startswith(idp.origin + "/")
    assert client.login(allow_failure=True).url.host == httpx2.URL(idp.origin).host


def test_sign_in_failed_quotes_the_start_of_an_answer_that_is_not_a_problem_document() -> None:
    page = "<html><body>" + "upstream proxy error " * 40 + "</body></html>"
    response = httpx2.Response(
        502, text=page, request=httpx2.Request("GET", "http://localhost:8000/auth/callback?code=c")
    )
    failure = SignInFailed(response, "the flow ended in 502 Bad Gateway")
    assert failure.problem is None and failure.status == 502 and failure.text == page
    assert "'<html><body>upstream proxy error" in str(failure)
    assert str(failure).endswith("...'")
    assert len(str(failure)) < 500


def test_sign_in_failed_is_exported_from_fw_testing() -> None:
    assert fw.testing.SignInFailed is SignInFailed
    assert "SignInFailed" in fw.testing.__all__
