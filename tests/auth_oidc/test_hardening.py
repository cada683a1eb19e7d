"""What an attacker tries against browser login, and what happens when the provider misbehaves."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route, request_response

from auth_oidc.conftest import Build
from auth_oidc.support import open_browser, session_settings
from fw.auth import accounts
from fw.auth.browser.redirects import safe_return_path
from fw.auth.oidc import OidcError, Provider
from fw.auth.sessions import Sessions, SessionSummary, manager
from fw.auth.stores.cookie import CookieSessions
from fw.errors import StartupError
from fw.testing import BrowserClient, TestIdentityProvider


def signed_in(client: BrowserClient) -> bool:
    return bool(client.get("/me").json()["signed_in"])


@pytest.fixture
def alice(browser: Build, idp: TestIdentityProvider) -> BrowserClient:
    """A browser signed in as alice."""
    client, _ = browser()
    idp.login_user("alice")
    client.login()
    return client


def callback_url(client: BrowserClient, path: str = "/auth/login") -> str:
    authorize = client.get(path, follow_redirects=False).headers["location"]
    return str(client.get(authorize, follow_redirects=False).headers["location"])


# Open redirects: tricks beyond the plain list of the redirect tests.
@pytest.mark.parametrize(
    "path",
    [
        "/a//b",
        "/.//evil.example",
        "/./x",
        "/x/../y",
        "/%2e%2e//evil.example",
        "/%2E/%2E//evil.example",
        "/%2e%2e%2f%2fevil.example",
        "/x/%2e%2e/%2f%2fevil.example",
        "/\x7f/evil.example",
        "/%7F/evil.example",
    ],
)
def test_paths_that_could_normalize_into_another_origin_are_refused(path: str) -> None:
    assert safe_return_path(path) is None


@pytest.mark.parametrize("path", ["/a/", "/a/b/", "/search?q=//x&r=/./", "/caf\u00e9", "/a#/./b"])
def test_ordinary_return_paths_survive_the_stricter_rules(path: str) -> None:
    assert safe_return_path(path) == path


@pytest.mark.parametrize("trick", ["//evil.example", "/\\evil.example", "/%2F%2Fevil.example", "/.//evil"])
def test_an_unsafe_next_never_reaches_the_location_header(
    browser: Build, idp: TestIdentityProvider, trick: str
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    landed = client.get(
        callback_url(client, f"/auth/login?{urlencode({'next': trick})}"), follow_redirects=False
    )
    assert landed.status_code == 303
    assert landed.headers["location"] == "/"


# Logout and cross-origin requests.
@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({"Origin": "null"}, True),
        ({"Origin": "http://localhost:8001"}, True),
        ({"Origin": "https://localhost:8000"}, True),
        ({"Origin": "http://evil.localhost:8000"}, True),
        ({"Referer": "https://evil.example/page"}, True),
        ({"Referer": "http://localhost:8000.evil.example/"}, True),
        ({"Sec-Fetch-Site": "same-site"}, True),
        ({"Sec-Fetch-Site": "cross-site", "Origin": "http://localhost:8000"}, True),
        ({"Origin": "http://LOCALHOST:8000"}, False),
        ({"Origin": "http://localhost:8000", "Sec-Fetch-Site": "same-origin"}, False),
        ({"Referer": "http://localhost:8000/account"}, False),
        ({}, False),  # no browser hint: the SameSite=Lax cookie is what a cross-site form lacks
    ],
)
def test_logout_refuses_every_sign_of_another_origin(
    alice: BrowserClient, headers: dict[str, str], refused: bool
) -> None:
    client = alice
    response = client.post("/auth/logout", headers=headers, follow_redirects=False)
    if refused:
        assert response.status_code == 403
        assert response.json()["code"] == "cross_origin"
        assert signed_in(client)
    else:
        assert response.status_code == 303
        assert not signed_in(client)


def test_logout_with_an_unreadable_form_still_ends_the_session(alice: BrowserClient) -> None:
    client = alice
    response = client.post(
        "/auth/logout",
        content=b"--x\r\nbroken",
        headers={"Content-Type": "multipart/form-data; boundary=x", "Origin": "http://localhost:8000"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert not signed_in(client)


def test_head_on_a_protected_path_goes_through_login_without_a_body(browser: Build) -> None:
    client, _ = browser()
    response = client.head("/private/report?x=1", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/login?next=%2Fprivate%2Freport%3Fx%3D1"
    assert response.content == b""


def test_head_on_a_protected_path_with_a_session_reaches_the_handler(alice: BrowserClient) -> None:
    client = alice
    assert client.head("/private/report").status_code == 200


# Cookies per origin.
def test_a_dev_app_without_an_https_address_sets_secure_cookies_except_on_plain_http_loopback(
    browser: Build,
) -> None:
    client, _ = browser()
    unknown = {"cookie": f"fw_session={'A' * 43}"}  # dropped: the answer expires the cookie
    loopback = client.get("/", headers=unknown).headers["set-cookie"]
    assert loopback.startswith("fw_session=;") and "Secure" not in loopback
    public = client.get("https://app.example.test/", headers=unknown).headers["set-cookie"]
    assert public.startswith("fw_session=;") and "; Secure" in public and "HttpOnly" in public


def test_a_dev_app_whose_redirect_url_is_https_sets_secure_cookies_even_on_plain_http_loopback(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    configured = {"redirect_url": "https://app.example.test/auth/callback"}
    with open_browser(idp, sqlite_dsn, base_url="https://app.example.test", oidc=configured) as (client, _):
        header = client.get("/auth/login", follow_redirects=False).headers["set-cookie"]
        assert header.startswith("fw_login=") and "; Secure" in header and "HttpOnly" in header
        loopback = client.get("http://localhost:8000/auth/login", follow_redirects=False).headers[
            "set-cookie"
        ]
        assert loopback.startswith("fw_login=") and "; Secure" in loopback


# What the callback does with the provider's answer.
def test_an_error_response_with_a_foreign_state_is_a_state_mismatch(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    genuine = callback_url(client)
    forged = client.get("/auth/callback?error=access_denied&state=forged", follow_redirects=False)
    assert forged.status_code == 400 and "state mismatch" in forged.json()["detail"]
    assert client.get(genuine, follow_redirects=False).status_code == 303


@pytest.mark.parametrize(
    ("error", "status"),
    [("access_denied", 403), ("login_required", 400), ("server_error", 400), ("<script>x" * 20, 400)],
)
def test_a_provider_error_is_a_clear_refusal_and_ends_the_attempt(
    browser: Build, idp: TestIdentityProvider, error: str, status: int
) -> None:
    client, _ = browser()
    authorize = client.get("/auth/login", follow_redirects=False).headers["location"]
    state = parse_qs(urlsplit(authorize).query)["state"][0]
    response = client.get(
        f"/auth/callback?{urlencode({'error': error, 'error_description': 'x', 'state': state})}",
        follow_redirects=False,
    )
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert len(response.json()["detail"]) < 200
    assert "fw_login" not in {c.name for c in client.cookies.jar}
    assert not signed_in(client)


def test_a_provider_that_goes_down_mid_login_is_a_503_not_a_crash(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    callback = callback_url(client)
    idp.running.stop()
    response = client.get(callback, follow_redirects=False)
    assert response.status_code == 503
    assert response.json()["code"] == "provider_unavailable"
    assert "Traceback" not in response.text
    assert not signed_in(client)


def test_a_token_endpoint_answering_garbage_is_a_503(
    browser: Build, idp: TestIdentityProvider, monkeypatch: pytest.MonkeyPatch
) -> None:

    client, _ = browser()
    idp.login_user("alice")
    callback = callback_url(client)

    async def broken(request: object) -> HTMLResponse:
        return HTMLResponse("<h1>502 Bad Gateway</h1>", status_code=502)

    token = next(r for r in idp.running.provider.app.routes if isinstance(r, Route) and r.path == "/token")
    monkeypatch.setattr(token, "app", request_response(broken))
    response = client.get(callback, follow_redirects=False)
    assert response.status_code == 503
    assert not signed_in(client)


# The development provider answers loopback names only (DNS rebinding).
@pytest.mark.parametrize("host", ["evil.example", "localhost.evil.example", "127.0.0.1.nip.io"])
def test_the_development_provider_ignores_requests_for_foreign_host_names(
    idp: TestIdentityProvider, host: str
) -> None:
    url = f"{idp.issuer}/.well-known/openid-configuration"
    assert httpx2.get(url, headers={"Host": host}).status_code == 421
    assert httpx2.get(url).status_code == 200


def without_iss(url: str) -> str:
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items() if k != "iss"}
    return f"/auth/callback?{urlencode(query)}"


def test_an_answer_without_iss_is_refused_when_the_provider_promises_it(
    browser: Build, idp: TestIdentityProvider
) -> None:

    client, extension = browser()
    idp.login_user("alice")
    callback = callback_url(client)
    assert extension.provider is not None and extension.provider._metadata is not None
    metadata = extension.provider._metadata
    promised = {**metadata.raw, "authorization_response_iss_parameter_supported": True}
    extension.provider._metadata = dataclasses.replace(metadata, raw=promised)
    response = client.get(without_iss(callback), follow_redirects=False)
    assert response.status_code == 400 and "another issuer" in response.json()["detail"]
    assert not signed_in(client)


# Each test opens its own browser and signs in (two lines) so it reads whole; the outcomes differ.
def test_an_answer_without_iss_is_accepted_from_a_provider_that_never_promised_it(
    browser: Build, idp: TestIdentityProvider
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    assert client.get(without_iss(callback_url(client)), follow_redirects=False).status_code == 303
    assert signed_in(client)


# Lifetimes seen by the browser.
def test_a_renewed_session_cookie_never_outlives_the_absolute_expiry(
    browser: Build, idp: TestIdentityProvider, monkeypatch: pytest.MonkeyPatch
) -> None:

    client, extension = browser(session=session_settings("cookie", secret=secrets.token_urlsafe(32)))
    sessions = extension.sessions
    sessions.ttl, sessions.idle_timeout = 3600.0, 3000.0  # auth.session.ttl = 1h, idle_timeout = 50m
    idp.login_user("alice")
    client.login()
    later = time.time() + 1800
    monkeypatch.setattr(manager.time, "time", lambda: later)
    response = client.get("/me")
    assert response.json()["signed_in"] is True
    renewed = next(h for h in response.headers.get_list("set-cookie") if h.startswith("fw_session="))
    max_age = int(renewed.split("Max-Age=")[1].split(";")[0])
    assert 1790 <= max_age <= 1800


# The account re-read under concurrency.
def test_concurrent_requests_of_one_account_share_a_single_reread(alice: BrowserClient) -> None:

    client = alice
    account_id = client.get("/me").json()["account_id"]
    calls: list[str] = []

    async def slow_lookup(wanted: str) -> accounts.Account:
        calls.append(wanted)
        await asyncio.sleep(0.3)
        return accounts.Account(wanted, "Alice Example", "alice@example.test")

    accounts.set_account_lookup(slow_lookup)
    accounts.forget_account(account_id)
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda _: client.get("/me").json(), range(6)))
    assert all(answer["signed_in"] for answer in answers)
    assert calls == [account_id]


def test_a_failed_reread_is_retried_by_the_next_request(alice: BrowserClient) -> None:
    client = alice
    account_id = client.get("/me").json()["account_id"]
    answers = iter([RuntimeError("store down"), accounts.Account(account_id, "Alice Example")])

    def flaky_lookup(wanted: str) -> accounts.Account:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    accounts.set_account_lookup(flaky_lookup)
    accounts.forget_account(account_id)
    assert client.get("/me").status_code == 503
    assert client.get("/me").json()["signed_in"] is True


# Sealed cookie sessions: key rotation.
@pytest.mark.parametrize("separator", [" ", ",", ", "])
def test_a_rotated_cookie_secret_keeps_old_seals_open_until_it_is_dropped(separator: str) -> None:
    old, new = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    sealed_before = CookieSessions(old).seal({"account_id": "a"}, time.time() + 60)
    rotating = CookieSessions(f"{new}{separator}{old}")
    assert rotating.unseal(sealed_before) == {"account_id": "a"}
    sealed_after = rotating.seal({"account_id": "b"}, time.time() + 60)
    assert CookieSessions(new).unseal(sealed_after) == {"account_id": "b"}
    assert CookieSessions(old).unseal(sealed_after) is None
    assert CookieSessions(new).unseal(sealed_before) is None


@pytest.mark.parametrize("weak", ["short", "not+base64/at=all+padded==", "A" * 20])
def test_every_listed_cookie_secret_must_be_strong(weak: str) -> None:
    good = secrets.token_urlsafe(32)
    with pytest.raises(StartupError) as caught:
        CookieSessions(f"{good} {weak}")
    assert caught.value.key == "session.keyring.secret"
    assert good not in str(caught.value) and weak not in str(caught.value)


# Lifetimes at their boundaries (a sealed-cookie store: no I/O, one clock).
class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    ticking = Clock()
    monkeypatch.setattr(time, "time", ticking)
    return ticking


def summary() -> SessionSummary:
    return SessionSummary("acc", "Alice", "a@example.test", "https://id.example", "alice", None)


async def resumed(sessions: Sessions, value: str) -> SessionSummary | None:
    """The summary of the live session behind ``value``, or ``None``."""
    active = await sessions.resume(value)
    return None if active is None else active.summary


async def test_a_session_lives_until_just_before_its_ttl_and_not_at_it(clock: Clock) -> None:
    sessions = Sessions(CookieSessions(secrets.token_urlsafe(32)), ttl=60, idle_timeout=0)
    value = await sessions.start(summary())
    clock.now += 59.999
    assert await resumed(sessions, value) == summary()
    clock.now += 0.001
    assert await sessions.resume(value) is None


async def test_an_idle_session_ends_exactly_at_the_idle_timeout(clock: Clock) -> None:
    sessions = Sessions(CookieSessions(secrets.token_urlsafe(32)), ttl=3600, idle_timeout=100)
    value = await sessions.start(summary())
    clock.now += 99.999
    assert await resumed(sessions, value) == summary()  # too soon to be written back (< 10 s)
    clock.now += 0.001
    assert await sessions.resume(value) is None


async def test_activity_never_extends_a_session_past_its_ttl(clock: Clock) -> None:
    sessions = Sessions(CookieSessions(secrets.token_urlsafe(32)), ttl=300, idle_timeout=100)
    value = await sessions.start(summary())
    for _ in range(5):
        clock.now += 59
        active = await sessions.resume(value)
        assert active is not None
        value = active.value
        assert active.expires_at == 1_800_000_000.0 + 300
    clock.now += 6  # 301 s after login, 6 s after the last activity
    assert await sessions.resume(value) is None


def test_behind_a_tls_proxy_logout_uses_the_public_origin_of_redirect_url(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    public = "https://app.example.test"
    oidc = {"redirect_url": f"{public}/auth/callback", "logout_scope": "global"}
    with open_browser(idp, sqlite_dsn, base_url="http://app.example.test", oidc=oidc) as (client, _):
        response = client.post("/auth/logout", headers={"Origin": public}, follow_redirects=False)
        assert response.status_code == 303
        query = parse_qs(urlsplit(response.headers["location"]).query)
        assert query["post_logout_redirect_uri"] == [f"{public}/"]
        refused = client.post("/auth/logout", headers={"Origin": "https://other.example.test"})
        assert refused.status_code == 403


# Discovery answers a relying party must not trust.
@pytest.mark.parametrize(
    ("status", "document", "reason"),
    [
        (
            200,
            {
                "issuer": "https://evil.example",
                "authorization_endpoint": "x",
                "token_endpoint": "x",
                "jwks_uri": "x",
            },
            "another issuer",
        ),
        (200, {"issuer": "https://id.example.test", "authorization_endpoint": "x"}, "incomplete"),
        (200, ["not", "an", "object"], "unexpected"),
        (502, None, "unexpected"),
    ],
    ids=["mix-up", "incomplete", "not-an-object", "bad-gateway"],
)
async def test_a_discovery_document_that_cannot_be_trusted_is_refused(
    status: int, document: object, reason: str
) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        if document is None:
            return httpx2.Response(status, text="<h1>Bad Gateway</h1>")
        return httpx2.Response(status, json=document)

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as http:
        provider = Provider("https://id.example.test", http=http)
        with pytest.raises(OidcError, match=reason):
            await provider.metadata()


def replace_endpoint(
    monkeypatch: pytest.MonkeyPatch, idp: TestIdentityProvider, path: str, body: object
) -> None:
    """Make one development-provider endpoint answer ``body`` as JSON."""

    async def answer(request: object) -> JSONResponse:
        return JSONResponse(body)

    route = next(r for r in idp.running.provider.app.routes if isinstance(r, Route) and r.path == path)
    monkeypatch.setattr(route, "app", request_response(answer))


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/jwks", {"keys": [{"kty": "RSA", "kid": "broken", "n": "x"}]}),
        ("/token", {"access_token": "a", "token_type": "Bearer"}),
    ],
    ids=["malformed-key-set", "no-id-token"],
)
def test_an_unusable_provider_answer_is_a_502_and_no_session(
    browser: Build, idp: TestIdentityProvider, monkeypatch: pytest.MonkeyPatch, path: str, body: object
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    callback = callback_url(client)
    replace_endpoint(monkeypatch, idp, path, body)
    response = client.get(callback, follow_redirects=False)
    assert response.status_code == 502
    assert response.json()["code"] == "provider_error"
    assert not signed_in(client)


@pytest.mark.parametrize("lookalike", ["/\uff0f\uff0fevil.example", "/\u2215\u2215evil.example", "/\u3002/x"])
def test_unicode_lookalikes_of_slash_land_as_percent_encoded_paths_on_this_site(
    browser: Build, idp: TestIdentityProvider, lookalike: str
) -> None:
    client, _ = browser()
    idp.login_user("alice")
    query = urlencode({"next": lookalike})
    location = client.get(callback_url(client, f"/auth/login?{query}"), follow_redirects=False).headers[
        "location"
    ]
    assert location.startswith("/%") and location.isascii()
    assert urlsplit(location).netloc == ""
