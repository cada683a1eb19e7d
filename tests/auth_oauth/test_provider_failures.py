"""Every failure X can produce ends the sign-in with a problem: no session, no account, no token kept."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
from starlette.responses import HTMLResponse, JSONResponse, Response

from auth_oauth.standin import ALICE, StandIn
from auth_oauth.support import accounts, assert_no_token_kept, assert_signed_out

UNAUTHORIZED = {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Callable[[], Response]:
    return lambda: JSONResponse(body, status_code=status, headers=headers)


LOOKUP_FAILURES: dict[str, tuple[Callable[[], Response], int]] = {
    "401 problem JSON": (_json(UNAUTHORIZED, 401), 400),
    "5xx": (_json({"title": "Service Unavailable"}, 503), 503),
    "500 HTML": (lambda: HTMLResponse("<h1>Something went wrong</h1>", status_code=500), 503),
    "no data": (_json({"errors": [{"detail": "Could not find user"}]}), 400),
    "no id": (_json({"data": {k: v for k, v in ALICE.items() if k != "id"}}), 400),
    "id as a number": (_json({"data": {**ALICE, "id": 2244994945}}), 400),
    "empty id": (_json({"data": {**ALICE, "id": ""}}), 400),
    "HTML instead of JSON": (lambda: HTMLResponse("<html><body>Welcome</body></html>"), 400),
    "oversized": (_json({"data": {**ALICE, "name": "a" * 100_000}}), 400),
    "a JSON array": (_json([ALICE]), 400),
}


@pytest.fixture(autouse=True)
def _all_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)


def _refused(browser: Any, standin: StandIn, dsn: str, caplog: pytest.LogCaptureFixture, status: int) -> Any:
    client = browser()
    answer = client.get("/auth/login", follow_redirects=True)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert_signed_out(client, dsn)
    assert accounts(dsn) == []
    assert_no_token_kept(standin, dsn, caplog)
    for token in standin.issued:
        assert token not in answer.text
    return answer


@pytest.mark.parametrize("case", list(LOOKUP_FAILURES), ids=list(LOOKUP_FAILURES))
def test_a_failed_or_malformed_lookup_signs_no_one_in(
    case: str, browser: Any, standin: StandIn, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    lookup, status = LOOKUP_FAILURES[case]
    standin.lookup = lookup
    _refused(browser, standin, sqlite_dsn, caplog, status)
    assert len(standin.issued) == 1 and len(standin.paths("/2/users/me")) == 1


def test_a_spent_rate_limit_is_a_429_saying_when_to_retry(
    browser: Any, standin: StandIn, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    reset = int(time.time()) + 120
    standin.lookup = _json({"title": "Too Many Requests"}, 429, {"x-rate-limit-reset": str(reset)})
    answer = _refused(browser, standin, sqlite_dsn, caplog, 429)
    assert 100 <= int(answer.headers["retry-after"]) <= 120
    assert answer.json()["code"] == "rate_limited"


def test_a_person_declining_at_x_is_a_403(
    browser: Any, standin: StandIn, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    standin.authorize_error = "access_denied"
    _refused(browser, standin, sqlite_dsn, caplog, 403)
    assert standin.paths("/2/oauth2/token") == []


@pytest.mark.parametrize(
    "error",
    [
        ("invalid_request", "Value passed for the code verifier did not match the code challenge."),
        ("invalid_grant", "Value passed for the token was invalid."),
    ],
)
def test_a_token_error_is_a_400_naming_it(
    error: tuple[str, str], browser: Any, standin: StandIn, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    standin.token_error = error
    answer = _refused(browser, standin, sqlite_dsn, caplog, 400)
    assert error[0] in answer.json()["detail"]
    assert standin.paths("/2/users/me") == []


def test_a_wrong_client_secret_is_refused_by_the_token_endpoint(
    standin: StandIn, sqlite_dsn: str, caplog: pytest.LogCaptureFixture, browser: Any
) -> None:
    from auth_oauth.conftest import make_app, oauth_layers
    from fw.testing import BrowserClient, configured

    layers = oauth_layers(standin, sqlite_dsn)
    with (
        configured(toml=layers["toml"], env={"AUTH_OAUTH_CLIENT_SECRET": "wrong"}),
        BrowserClient(make_app(), standin.origin) as client,
    ):
        answer = client.get("/auth/login", follow_redirects=True)
        assert answer.status_code == 400 and client.get("/me").json() == {"signed_in": False}
    assert accounts(sqlite_dsn) == []


def test_an_unreachable_provider_is_a_503(
    browser: Any, standin: StandIn, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = browser(oauth={"token_endpoint": "http://127.0.0.1:9/2/oauth2/token"})
    answer = client.get("/auth/login", follow_redirects=True)
    assert answer.status_code == 503 and answer.json()["code"] == "provider_unavailable"
    assert_signed_out(client, sqlite_dsn)
    assert accounts(sqlite_dsn) == []
    assert "provider x unavailable" in caplog.text


def test_the_log_of_a_failed_lookup_names_the_failure_but_not_the_token(
    browser: Any, standin: StandIn, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    standin.lookup = _json({"data": {**ALICE, "id": 1}})
    _refused(browser, standin, sqlite_dsn, caplog, 400)
    assert "non-string id" in caplog.text
    assert json.dumps(standin.issued[0]) not in caplog.text
