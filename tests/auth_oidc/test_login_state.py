"""Sign-ins in progress live sealed in the browser, never in the store; tabs never mix."""

from __future__ import annotations

import asyncio
import secrets
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import func, select

from auth_oidc.conftest import Build
from fw.auth.browser.login_state import MAX_ATTEMPTS, LoginAttempt, LoginStates
from fw.rdb.engine import create_engine
from fw.rdb.tables import SESSIONS
from fw.testing import BrowserClient, TestIdentityProvider


def to_provider(client: BrowserClient, path: str = "/auth/login") -> str:
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 302, response.text
    return str(response.headers["location"])


def at_provider(client: BrowserClient, authorize_url: str) -> str:
    """What the provider sends the browser back with (the callback URL)."""
    back = client.get(authorize_url, follow_redirects=False)
    assert back.status_code == 302, back.text
    return str(back.headers["location"])


def state_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["state"][0]


def login_cookie(client: BrowserClient) -> str:
    return next(c.value for c in client.cookies.jar if c.name == "fw_login")


def signed_in(client: BrowserClient) -> bool:
    return bool(client.get("/me").json()["signed_in"])


def session_rows(dsn: str) -> int:
    async def count() -> int:
        engine = create_engine(dsn)
        try:
            async with engine.connect() as conn:
                return int((await conn.execute(select(func.count()).select_from(SESSIONS))).scalar_one())
        finally:
            await engine.dispose()

    return asyncio.run(count())


def test_an_anonymous_flood_of_login_requests_writes_nothing_to_the_store(
    browser: Build, sqlite_dsn: str
) -> None:
    client, _ = browser()
    before = session_rows(sqlite_dsn)
    for _ in range(25):
        client.cookies.clear()
        to_provider(client)
    assert session_rows(sqlite_dsn) == before


def test_the_login_cookie_reveals_neither_state_nor_verifier(browser: Build) -> None:
    client, _ = browser()
    url = to_provider(client)
    value = login_cookie(client)
    assert state_of(url) not in value
    assert parse_qs(urlsplit(url).query)["nonce"][0] not in value
    header = client.get("/auth/login", follow_redirects=False).headers["set-cookie"]
    assert "HttpOnly" in header and "SameSite=Lax" in header and "Max-Age=600" in header


def test_two_tabs_signing_in_at_once_both_finish(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    idp.login_user("alice")
    first = to_provider(client, "/auth/login?next=/first")
    second = to_provider(client, "/auth/login?next=/second")
    first_back = at_provider(client, first)
    second_back = at_provider(client, second)
    landed = client.get(first_back, follow_redirects=False)
    assert landed.status_code == 303 and landed.headers["location"] == "/first"
    assert signed_in(client)
    landed = client.get(second_back, follow_redirects=False)
    assert landed.status_code == 303 and landed.headers["location"] == "/second"


def test_a_code_from_one_tab_with_the_state_of_another_is_refused(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    first = at_provider(client, to_provider(client))
    second = at_provider(client, to_provider(client))
    code = parse_qs(urlsplit(second).query)["code"][0]
    mixed = (
        f"/auth/callback?{urlsplit(first).query.replace(parse_qs(urlsplit(first).query)['code'][0], code)}"
    )
    assert state_of(mixed) == state_of(first)
    response = client.get(mixed, follow_redirects=False)
    assert response.status_code == 400  # the code's PKCE challenge belongs to the other attempt
    assert not signed_in(client)


# Each test opens its own browser and signs in (two lines) so it reads whole; the outcomes differ.
def test_a_forged_callback_does_not_discard_the_genuine_sign_in(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    genuine = at_provider(client, to_provider(client))
    forged = client.get("/auth/callback?state=forged&code=whatever", follow_redirects=False)
    assert forged.status_code == 400
    assert "state mismatch" in forged.json()["detail"]
    assert client.get(genuine, follow_redirects=False).status_code == 303
    assert signed_in(client)


def test_each_attempt_is_used_once(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    idp.login_user("alice")
    callback = at_provider(client, to_provider(client))
    kept = login_cookie(client)
    assert client.get(callback, follow_redirects=False).status_code == 303
    assert "fw_login" not in {c.name for c in client.cookies.jar}
    client.cookies.set("fw_login", kept, domain="localhost.local")
    replay = client.get(callback, follow_redirects=False)
    assert replay.status_code == 400  # the provider redeems a code once


@pytest.mark.parametrize("damage", ["flip", "truncate", "other-key", "garbage", "huge"])
def test_a_forged_or_damaged_login_cookie_is_no_sign_in(
    browser: Build, idp: TestIdentityProvider, damage: str
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    callback = at_provider(client, to_provider(client))
    value = login_cookie(client)
    stranger = LoginStates(secrets.token_bytes(32))
    attempt = LoginAttempt(state_of(callback), "n", "v" * 43, "http://localhost:8000/auth/callback", "/", 9e9)
    damaged = {
        "flip": value[:30] + ("A" if value[30] != "A" else "B") + value[31:],
        "truncate": value[:-4],
        "other-key": stranger.seal([attempt]),
        "garbage": "%%%not-base64%%%",
        "huge": "A" * 5000,
    }[damage]
    client.cookies.clear()
    client.cookies.set("fw_login", damaged, domain="localhost.local")
    response = client.get(callback, follow_redirects=False)
    assert response.status_code == 400
    assert response.json()["code"] == "login_failed"
    assert not signed_in(client)


def test_an_attempt_older_than_ten_minutes_is_refused(
    browser: Build, idp: TestIdentityProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fw.auth.browser import login_state

    client, _ = browser()
    idp.login_user("alice")
    callback = at_provider(client, to_provider(client))
    later = time.time() + 601
    monkeypatch.setattr(login_state.time, "time", lambda: later)
    assert client.get(callback, follow_redirects=False).status_code == 400
    assert not signed_in(client)


def test_a_browser_keeps_only_the_latest_few_attempts() -> None:
    states = LoginStates(secrets.token_bytes(32))
    attempts = [
        LoginAttempt(f"s{i}", "n", "v", "http://localhost/cb", "/", time.time() + 60) for i in range(5)
    ]
    opened = states.open(states.seal(attempts))
    assert [a.state for a in opened] == [f"s{i}" for i in range(5 - MAX_ATTEMPTS, 5)]
    found, rest = LoginStates.take(opened, "s4")
    assert found is not None and found.state == "s4" and [a.state for a in rest] == ["s2", "s3"]
    assert LoginStates.take(opened, "s0") == (None, opened)


def test_a_long_return_path_falls_back_to_the_landing_page(browser: Build, idp: TestIdentityProvider) -> None:
    client, _ = browser()
    idp.login_user("alice")
    long_path = "/a" * 700
    landed = client.get(at_provider(client, to_provider(client, f"/auth/login?next={long_path}")))
    assert landed.url.path == "/"
    assert signed_in(client)
