"""Step-up against an independent, certified provider (npm ``oidc-provider`` on loopback), which
honours ``max_age`` and ``prompt=login`` and answers ``auth_time``: the session moves from active
to confirmed only by a re-proof of the same person, a zero window is used once, a replayed
callback and a re-proof as someone else write nothing."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from auth_oidc.test_interop_oidc_provider import submit_form
from interop.conftest import RunningProvider, relying_party, start_provider

import fw
from auth_assurance.support import (
    concurrently,
    open_guarded,
    read_session,
    step_up_location,
    suspend_quietly,
)
from fw.testing import BrowserClient

__all__ = ["start_provider"]  # the harness fixture, used below

ORIGIN = "http://localhost:8000"
Open = Callable[[], "contextlib.AbstractContextManager[tuple[BrowserClient, fw.App]]"]


@pytest.fixture(params=[True], ids=["require_auth_time"])
def require_auth_time(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def rp(
    start_provider: Callable[[dict[str, Any]], RunningProvider], sqlite_dsn: str, require_auth_time: bool
) -> Open:
    secret = secrets.token_urlsafe(16)
    provider = start_provider(
        {
            "clients": [
                # Without require_auth_time this provider (claims parameter off, so fw's request
                # for an essential auth_time is ignored) says auth_time only when max_age was
                # sent: see test_interop_sign_in_proof_time.py for both kinds of provider.
                relying_party(secret, ORIGIN, require_auth_time=require_auth_time)
            ],
            "accounts": {
                "alice": {"email": "alice@interop.test", "name": "Alice Interop"},
                "bob": {"email": "bob@interop.test", "name": "Bob Interop"},
            },
        }
    )

    @contextlib.contextmanager
    def build() -> Iterator[tuple[BrowserClient, fw.App]]:
        with open_guarded(
            provider.issuer, sqlite_dsn, base_url=ORIGIN, client_id="fw-rp", client_secret=secret
        ) as opened:
            yield opened

    return build


def through_provider(client: BrowserClient, page: httpx2.Response, login: str = "alice") -> httpx2.Response:
    """Answer the provider's login (and consent, the first time) as ``login``; the landing page."""
    assert 'name="login"' in page.text, page.text
    answer = submit_form(client, page, login=login, password="any")
    for _ in range(3):  # consent the first time; a switch of person ends the provider's session first
        if str(answer.url).startswith(ORIGIN) or "<form" not in answer.text:
            break
        answer = submit_form(client, answer)
    return answer


def sign_in(client: BrowserClient, login: str = "alice") -> None:
    landed = through_provider(client, client.get("/auth/login?next=/me", follow_redirects=True), login)
    assert landed.json()["signed_in"] is True and landed.json()["key"] == login


def test_a_login_fills_max_age_but_never_confirmed(rp: Open) -> None:
    with rp() as (client, app):
        sign_in(client)
        assert client.get("/settings").json() == {"page": "settings"}
        _, query = step_up_location(client.get("/confirmed", follow_redirects=False))
        assert query["max_age"] == ["300"]
        summary = read_session(client, app)
        assert summary is not None and summary.auth_time is not None and summary.confirmed_at is None


def test_the_certified_provider_asks_again_and_the_step_up_confirms_the_session(rp: Open) -> None:
    with rp() as (client, app):
        sign_in(client)
        page = client.get("/confirmed", follow_redirects=True)  # prompt=login: its session does not answer
        landed = through_provider(client, page)
        assert landed.json() == {"page": "confirmed"} and str(landed.url) == f"{ORIGIN}/confirmed"
        summary = read_session(client, app)
        assert summary is not None and summary.confirmed_at == summary.auth_time


def test_a_zero_window_is_satisfied_once_by_its_step_up(rp: Open) -> None:
    with rp() as (client, _):
        sign_in(client)
        landed = through_provider(client, client.get("/once", follow_redirects=True))
        assert landed.json() == {"page": "once"}
        _, query = step_up_location(client.get("/once", follow_redirects=False))
        assert query["max_age"] == ["0"]


def test_two_concurrent_uses_of_one_zero_window_step_up_let_exactly_one_through(rp: Open) -> None:
    with rp() as (client, app):
        sign_in(client)
        refused = client.post(
            "/account/delete", headers={"referer": f"{ORIGIN}/account"}, follow_redirects=False
        )
        landed = through_provider(client, client.get(refused.headers["location"], follow_redirects=True))
        assert landed.json() == {"page": "account"}  # the POST resumed as the page it came from
        assert sorted(concurrently(client, app, "POST", "/account/delete")) == [200, 303]


def test_a_zero_window_grant_from_the_certified_provider_opens_only_the_route_that_asked(rp: Open) -> None:
    with rp() as (client, _):
        sign_in(client)
        referer = {"referer": f"{ORIGIN}/account"}
        asked = client.post("/account/delete", headers=referer, follow_redirects=False)
        landed = through_provider(client, client.get(asked.headers["location"], follow_redirects=True))
        assert landed.json() == {"page": "account"}  # re-proved for POST /account/delete, unused
        assert client.post("/api/once").status_code == 401
        step_up_location(client.get("/once", follow_redirects=False))
        assert client.post("/account/delete", headers=referer).json() == {"deleted": True}
        step_up_location(client.post("/account/delete", headers=referer, follow_redirects=False))


def test_a_step_up_as_someone_else_answers_403_and_keeps_the_session(rp: Open) -> None:
    with rp() as (client, app):
        sign_in(client, "alice")
        before = read_session(client, app)
        answer = through_provider(client, client.get("/once", follow_redirects=True), login="bob")
        assert answer.status_code == 403 and answer.json()["code"] == "step_up_failed"
        assert read_session(client, app) == before
        assert client.get("/me").json()["key"] == "alice"


def test_a_suspended_account_cannot_step_up_at_the_certified_provider(rp: Open) -> None:
    with rp() as (client, app):
        sign_in(client)
        summary = read_session(client, app)
        assert summary is not None
        suspend_quietly(client, app, summary.account_id)
        answer = through_provider(client, client.get("/once", follow_redirects=True))
        assert answer.status_code == 403 and answer.json()["code"] == "not_admitted"
        assert read_session(client, app) == summary  # nothing written


def test_a_replayed_step_up_callback_writes_nothing(rp: Open) -> None:
    with rp() as (client, app):
        sign_in(client)
        page = client.get("/once", follow_redirects=True)
        login_cookie = client.cookies.get("fw_login")
        landed = through_provider(client, page)
        callback = next(str(r.url) for r in landed.history if r.url.path == "/auth/callback")
        assert landed.json() == {"page": "once"}
        spent = read_session(client, app)
        assert login_cookie and spent is not None
        client.cookies.set("fw_login", login_cookie, domain="localhost")
        replayed = client.get(callback, follow_redirects=False)
        assert replayed.status_code in (400, 403), replayed.text
        assert read_session(client, app) == spent
        step_up_location(client.get("/once", follow_redirects=False))


@pytest.mark.parametrize("require_auth_time", [False], ids=["auth_time_on_request"], indirect=True)
def test_a_login_without_auth_time_is_stepped_up_for_max_age_once(rp: Open) -> None:
    with rp() as (client, app):
        sign_in(client)
        summary = read_session(client, app)
        assert summary is not None and summary.auth_time is None  # the provider did not say when
        landed = through_provider(client, client.get("/settings", follow_redirects=True))
        assert landed.json() == {"page": "settings"}
        assert client.get("/settings").json() == {"page": "settings"}
