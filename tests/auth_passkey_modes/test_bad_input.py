"""Bad input at the finish endpoints: always a 4xx problem, never a 500, and nothing stored."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fw
from auth_passkey_modes.support import PasskeyBrowser, passkey_only
from fw.testing.passkeys import replace_member, truncate

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def ticket_holder(browser: PasskeyBrowser) -> None:
    credential = browser.call(fw.auth.issue_bootstrap_credential, "alice")
    assert browser.bootstrap("alice", credential.secret).status_code == 200


def spoiled_registrations(answer: dict[str, Any]) -> list[Any]:
    return [
        truncate(answer, "clientDataJSON", 10),
        truncate(answer, "attestationObject", 30),
        replace_member(answer, "clientDataJSON", b"{" * 5000),
        {**answer, "rawId": "not base64url!"},
        {**answer, "id": "AAAA"},
        {**answer, "response": {**answer["response"], "clientDataJSON": 7}},
        {**answer, "response": "x"},
        [answer],
    ]


def test_malformed_registrations_are_400_and_store_nothing(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        ticket_holder(browser)
        for spoiled in spoiled_registrations(browser.authenticator.create(browser.begin_registration())):
            refused = browser.post("/register/finish", spoiled)
            assert refused.status_code == 400, refused.text
            assert refused.headers["content-type"].startswith("application/problem+json")
            browser.begin_registration()
        assert browser.me() == {"signed_in": False}


def test_a_truncated_authenticator_data_or_bad_base64url_at_sign_in_is_400(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        ticket_holder(browser)
        assert browser.register().status_code == 200
        browser.logout()
        answer = browser.authenticator.get(browser.begin_login())
        for spoiled in (
            truncate(answer, "authenticatorData", 20),
            {**answer, "response": {**answer["response"], "signature": "@@"}},
            {**answer, "type": "password"},
        ):
            browser.begin_login()
            assert browser.post("/login/finish", spoiled).status_code == 400
        assert browser.me() == {"signed_in": False}


def test_a_body_that_is_not_json_is_a_400_problem(dsn: str) -> None:
    with passkey_only(dsn) as browser:
        for body in (b"{not json", b"\xff\xfe", b"[" * 100000):
            answer = browser.post(
                "/login/finish", content=body[:60000], headers={"content-type": "application/json"}
            )
            assert answer.status_code == 400


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=json_values, endpoint=st.sampled_from(["/login/finish", "/register/finish", "/bootstrap"]))
def test_any_json_body_at_a_finish_endpoint_is_a_4xx_problem_and_stores_nothing(
    dsn: str, body: Any, endpoint: str
) -> None:
    with passkey_only(dsn) as browser:
        ticket_holder(browser)
        browser.begin_registration() if endpoint == "/register/finish" else browser.begin_login()
        answer = browser.post(endpoint, body if body is not None else {})
        assert 400 <= answer.status_code < 500, answer.text
        assert answer.headers["cache-control"] == "no-store"
        assert browser.me() == {"signed_in": False}
