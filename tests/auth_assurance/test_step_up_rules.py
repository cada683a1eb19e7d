"""The step-up rules against the development provider: a callback that does not re-prove this
session's identity inside the window, or whose account lost access, answers 403 and writes
nothing; a replayed callback writes nothing either."""

from __future__ import annotations

import time

from pillars import the_pillar

import fw
from auth_assurance.conftest import Build
from auth_assurance.support import read_session, step_up_location, suspend_quietly
from fw.auth.sessions.manager import SessionSummary
from fw.auth.settings import Claim
from fw.devidp import DevUser
from fw.testing import BrowserClient, TestIdentityProvider


def sign_in(client: BrowserClient, sub: str = "alice") -> None:
    assert client.login(sub, next="/me").json()["signed_in"] is True


def refused_step_up(client: BrowserClient, path: str = "/once") -> dict[str, object]:
    """Follow a guard's step-up to its end; it must be a 403 problem."""
    answer = client.get(path, follow_redirects=True)
    assert answer.status_code == 403, answer.text
    body: dict[str, object] = answer.json()
    return body


def unchanged(client: BrowserClient, app: fw.App, before: SessionSummary | None) -> None:
    after = read_session(client, app)
    assert after is not None and after == before
    assert after.confirmed_at is None and after.grant == ""
    _, query = step_up_location(client.get("/once", follow_redirects=False))  # still not confirmed
    assert query["max_age"] == ["0"]


def test_a_step_up_that_signs_in_as_someone_else_answers_403_and_keeps_the_session(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, app = guarded()
    sign_in(client, "alice")
    before = read_session(client, app)
    idp.login_user("bob")
    body = refused_step_up(client)
    assert body["code"] == "step_up_failed"
    assert client.get("/me").json()["key"] == "alice"
    unchanged(client, app, before)


def test_a_step_up_answer_whose_auth_time_is_outside_the_window_is_refused(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, app = guarded()
    sign_in(client)
    before = read_session(client, app)
    idp.state.answer_auth_time = int(time.time()) - 400  # the page asks for 300 s
    assert refused_step_up(client, "/confirmed")["code"] == "step_up_failed"
    idp.state.answer_auth_time = None
    unchanged(client, app, before)


def test_a_zero_window_step_up_answered_from_an_earlier_sign_in_is_refused(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, app = guarded()
    sign_in(client)
    before = read_session(client, app)
    idp.state.answer_auth_time = int(time.time()) - 60  # the provider did not make the person prove it
    assert refused_step_up(client)["code"] == "step_up_failed"
    idp.state.answer_auth_time = None
    unchanged(client, app, before)


# Each step-up test arranges its own sign-in and session read so it reads whole; the answers differ.
def test_a_step_up_answer_without_auth_time_is_a_failed_re_proof(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, app = guarded()
    sign_in(client)
    before = read_session(client, app)
    idp.state.omit_auth_time = True
    body = refused_step_up(client)
    assert body["code"] == "step_up_failed" and "auth_time" in str(body["detail"])
    idp.state.omit_auth_time = False
    unchanged(client, app, before)


def test_a_suspended_account_cannot_step_up(guarded: Build) -> None:
    client, app = guarded()
    sign_in(client)
    before = read_session(client, app)
    assert before is not None
    suspend_quietly(client, app, before.account_id)  # the session has not re-read the account yet
    assert refused_step_up(client)["code"] == "not_admitted"
    assert read_session(client, app) == before


def test_an_identity_no_longer_admitted_cannot_step_up(guarded: Build, idp: TestIdentityProvider) -> None:
    idp.add_user(DevUser("carol", "Carol", "carol@example.test", {"groups": ["staff"]}))
    client, app = guarded(
        oidc={"admission": "claim", "claim": Claim(path="/groups", values=["staff"], match="any")}
    )
    sign_in(client, "carol")
    before = read_session(client, app)
    idp.add_user(DevUser("carol", "Carol", "carol@example.test", {"groups": ["former"]}))
    assert refused_step_up(client)["code"] == "not_admitted"
    unchanged(client, app, before)


def test_a_replayed_step_up_callback_writes_nothing(guarded: Build) -> None:
    client, app = guarded()
    sign_in(client)
    to_login = client.get("/once", follow_redirects=False)
    to_provider = client.get(to_login.headers["location"], follow_redirects=False)
    login_cookie = client.cookies.get("fw_login")
    assert login_cookie
    callback = client.get(to_provider.headers["location"], follow_redirects=False).headers["location"]
    completed = client.get(callback, follow_redirects=False)
    assert completed.status_code == 303 and completed.headers["location"] == "/once"
    assert client.get("/once").json() == {"page": "once"}  # the one use
    spent = read_session(client, app)
    assert spent is not None and spent.grant
    client.cookies.set("fw_login", login_cookie, domain="localhost")  # the replay carries the old state
    replayed = client.get(callback, follow_redirects=False)
    assert replayed.status_code in (400, 403), replayed.text
    assert read_session(client, app) == spent
    step_up_location(client.get("/once", follow_redirects=False))  # nothing new to use


def test_a_step_up_whose_session_ended_meanwhile_starts_nothing(guarded: Build) -> None:
    client, app = guarded()
    sign_in(client)
    to_login = client.get("/once", follow_redirects=False)
    to_provider = client.get(to_login.headers["location"], follow_redirects=False)
    callback = client.get(to_provider.headers["location"], follow_redirects=False).headers["location"]
    extension = the_pillar(app)
    client.portal.call(extension.sessions.end, client.cookies.get("fw_session"))  # type: ignore[union-attr,attr-defined]
    answer = client.get(callback, follow_redirects=False)
    assert answer.status_code == 403 and answer.json()["code"] == "step_up_failed"
    assert client.get("/me").json() == {"signed_in": False}
