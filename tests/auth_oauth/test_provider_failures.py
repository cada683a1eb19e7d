"""Every failure X can produce ends the sign-in with a problem: no session, no account, no token kept."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from auth_oauth.support import accounts, assert_no_token_kept, assert_signed_out
from fw.devidp.x import LookupFailure
from fw.testing import TestOAuthProvider

#: Each broken lookup answer, the 5xx it comes with (if any) and the status fw answers the browser.
LOOKUP_FAILURES: dict[str, tuple[LookupFailure, int | None, int]] = {
    "401 problem JSON": ("unauthorized", None, 400),
    "403 problem JSON": ("forbidden", None, 400),
    "5xx": ("server_error", 503, 503),
    "500 HTML": ("proxy_error", 500, 503),
    "no data": ("missing_data", None, 400),
    "no id": ("missing_id", None, 400),
    "id as a number": ("numeric_id", None, 400),
    "empty id": ("empty_id", None, 400),
    "HTML instead of JSON": ("html", None, 400),
    "oversized": ("oversized", None, 400),
    "a JSON array": ("not_an_object", None, 400),
}


@pytest.fixture(autouse=True)
def _all_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)


def _refused(
    browser: Any, x: TestOAuthProvider, dsn: str, caplog: pytest.LogCaptureFixture, status: int
) -> Any:
    client = browser()
    answer = client.get("/auth/login", follow_redirects=True)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert_signed_out(client, dsn)
    assert accounts(dsn) == []
    assert_no_token_kept(x, dsn, caplog)
    for token in x.issued_tokens:
        assert token not in answer.text
    return answer


@pytest.mark.parametrize("case", list(LOOKUP_FAILURES), ids=list(LOOKUP_FAILURES))
def test_a_failed_or_malformed_lookup_signs_no_one_in(
    case: str, browser: Any, x: TestOAuthProvider, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    failure, provider_status, status = LOOKUP_FAILURES[case]
    x.fail_lookup(failure, status=provider_status)
    _refused(browser, x, sqlite_dsn, caplog, status)
    assert len(x.issued_tokens) == 1 and len(x.state.lookups) == 1


def test_a_spent_rate_limit_is_a_429_saying_when_to_retry(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    x.fail_lookup("rate_limited", reset_after=120)
    answer = _refused(browser, x, sqlite_dsn, caplog, 429)
    assert 100 <= int(answer.headers["retry-after"]) <= 120
    assert answer.json()["code"] == "rate_limited"


def test_a_person_declining_at_x_is_a_403(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    x.fail_authorization("access_denied")
    _refused(browser, x, sqlite_dsn, caplog, 403)
    assert x.state.token_requests == []


@pytest.mark.parametrize(
    "error",
    [
        ("invalid_request", "Value passed for the code verifier did not match the code challenge."),
        ("invalid_grant", "Value passed for the token was invalid."),
    ],
)
def test_a_token_error_is_a_400_naming_it(
    error: tuple[str, str],
    browser: Any,
    x: TestOAuthProvider,
    sqlite_dsn: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    x.fail_token(*error)
    answer = _refused(browser, x, sqlite_dsn, caplog, 400)
    assert error[0] in answer.json()["detail"]
    assert x.state.lookups == []


def test_a_wrong_client_secret_is_refused_by_the_token_endpoint(
    x: TestOAuthProvider, sqlite_dsn: str, caplog: pytest.LogCaptureFixture, browser: Any
) -> None:
    from auth_oauth.conftest import make_app
    from auth_oauth.support import oauth_layers
    from fw.testing import BrowserClient, configured

    layers = oauth_layers(x, sqlite_dsn)
    with (
        configured(toml=layers["toml"], env={"AUTH_OAUTH_CLIENT_SECRET": "wrong"}),
        BrowserClient(make_app(), x) as client,
    ):
        answer = client.get("/auth/login", follow_redirects=True)
        assert answer.status_code == 400 and client.get("/me").json() == {"signed_in": False}
    assert accounts(sqlite_dsn) == []


def test_an_unreachable_provider_is_a_503(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = browser(oauth={"token_endpoint": "http://127.0.0.1:9/2/oauth2/token"})
    answer = client.get("/auth/login", follow_redirects=True)
    assert answer.status_code == 503 and answer.json()["code"] == "provider_unavailable"
    assert_signed_out(client, sqlite_dsn)
    assert accounts(sqlite_dsn) == []
    assert "provider x unavailable" in caplog.text


def test_the_log_of_a_failed_lookup_names_the_failure_but_not_the_token(
    browser: Any, x: TestOAuthProvider, sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    x.fail_lookup("numeric_id")
    _refused(browser, x, sqlite_dsn, caplog, 400)
    assert "non-string id" in caplog.text
    assert json.dumps(x.issued_tokens[0]) not in caplog.text
