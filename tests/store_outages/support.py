"""Two Apps on one store, and what each must answer while that store is down and once it is back.

A bearer API (``jwt_only``, revocation by token and subject read from the store on every request,
``on_unavailable = refuse``) and a browser App (``oidc_only``, its sessions in the store under
test) are driven from outside, as clients see them. While the store cannot be used, a valid
token or session must get the 503 ``unavailable`` problem: a 401 makes a client throw its token
away and a sign-in redirect signs a person out, though nothing is wrong with either. A revoked
token or an ended session must never get through. Once the store is back, both Apps serve again
by themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta

import httpx2
from auth_jwt.conftest import api, bearer, jwt_only
from auth_jwt.settings import auth_settings, jwt_settings, revocation
from auth_oidc.support import open_browser
from backends import StoreBackend
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.testclient import TestClient

from fw.auth.sessions.manager import SESSION_COOKIE
from fw.auth.stores.select import middleware_settings, open_auth_store
from fw.core.middleware import Pipeline
from fw.testing import BrowserClient, TestIdentityProvider
from fw.testing.issuer import LocalIssuer

#: Seconds a store that came back may still be answered 503 (connections being replaced).
RECOVERY = 30.0


@contextlib.contextmanager
def bearer_api(issuer: LocalIssuer, store: StoreBackend | str) -> Iterator[TestClient]:
    """``GET /api/me`` behind ``jwt_only``, revocation ``both`` in ``store``, read on every request."""
    settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("both")))
    extension = jwt_only(settings, store)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await extension.startup()
        yield
        await extension.shutdown()

    guard = [Middleware(Pipeline, middleware=extension.middleware())]
    app = Starlette(routes=api(extension).routes, middleware=guard, lifespan=lifespan)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def _backend(store: StoreBackend | str) -> StoreBackend:
    return (
        store if isinstance(store, StoreBackend) else StoreBackend("rdb", "rdb", middleware_settings(store))
    )


def revoke_token(store: StoreBackend | str, issuer: str, token_id: str) -> None:
    """Revoke a token through a store of its own, as an administrator's script would."""

    async def put() -> None:
        backend = _backend(store)
        records = await open_auth_store(backend.name, backend.middleware, ["revocations"])
        try:
            await records.revocations.put(issuer, "token", token_id, "leaked", timedelta(hours=1))
        finally:
            await records.close()

    asyncio.run(put())


@dataclass
class Tokens:
    """A token that passes and one revoked, both unexpired; the API answered each as it must."""

    valid: str
    revoked: str


def tokens(issuer: LocalIssuer, api_client: TestClient, store: StoreBackend | str) -> Tokens:
    minted = Tokens(
        issuer.mint("valid-user", token_id="jti-valid"), issuer.mint("other", token_id="jti-revoked")
    )
    revoke_token(store, issuer.url, "jti-revoked")
    assert api_client.get("/api/me", headers=bearer(minted.valid)).status_code == 200
    assert api_client.get("/api/me", headers=bearer(minted.revoked)).status_code == 401
    return minted


@dataclass
class Sessions:
    """A browser App and two of its session cookie values: a live session and one signed out.

    Every request names its session explicitly, so what one answer does to the client's cookie
    jar (an ended session's cookie is expired) never changes what the next one presents.
    """

    browser: BrowserClient
    live: str
    ended: str

    def get(self, path: str, value: str) -> httpx2.Response:
        self.browser.cookies.clear()
        return self.browser.get(path, headers={"Cookie": f"{SESSION_COOKIE}={value}"}, follow_redirects=False)

    def me(self, value: str | None = None) -> httpx2.Response:
        return self.get("/me", self.live if value is None else value)


def signed_in(browser: BrowserClient) -> Sessions:
    """Sign in, out, and in again: a live session and the value of an ended one."""
    assert browser.login("alice").status_code == 200
    ended = browser.cookies[SESSION_COOKIE]
    assert browser.logout().status_code == 303
    assert browser.login("alice").status_code == 200
    sessions = Sessions(browser, browser.cookies[SESSION_COOKIE], ended)
    assert sessions.me().json()["signed_in"] is True
    assert sessions.me(ended).json() == {"signed_in": False}
    return sessions


@contextlib.contextmanager
def browser_app(
    idp: TestIdentityProvider, store: StoreBackend | str, **changes: object
) -> Iterator[Sessions]:
    """``oidc_only`` on ``store`` (or as ``changes`` say), a browser signed in to it."""
    with open_browser(idp, store, **changes) as (browser, _):
        yield signed_in(browser)


def _unavailable(response: httpx2.Response, what: str) -> None:
    assert response.status_code == 503, f"{what}: {response.status_code} {response.text[:200]}"
    assert response.json()["code"] == "unavailable"
    assert "www-authenticate" not in response.headers


def assert_tokens_refused_as_unavailable(api_client: TestClient, minted: Tokens) -> None:
    """Both tokens get the 503: the valid one is not told it is bad, the revoked one is not let in."""
    for name, token in (("valid", minted.valid), ("revoked", minted.revoked)):
        _unavailable(api_client.get("/api/me", headers=bearer(token)), f"{name} token")


def assert_sessions_refused_as_unavailable(sessions: Sessions) -> None:
    """The live session gets the 503 on any page, protected or not, never a sign-in redirect; the
    ended one gets the 503 too, never a signed-in page."""
    _unavailable(sessions.me(), "live session, public page")
    _unavailable(sessions.get("/private/page", sessions.live), "live session, protected page")
    _unavailable(sessions.me(sessions.ended), "ended session")


def _until_served(ask: Callable[[], httpx2.Response], what: str) -> httpx2.Response:
    """Ask again until the answer is not a 503 (the store came back); every 503 meanwhile is the
    ``unavailable`` problem."""
    deadline = time.monotonic() + RECOVERY
    while True:
        response = ask()
        if response.status_code != 503 or time.monotonic() > deadline:
            return response
        _unavailable(response, what)
        time.sleep(0.2)


def assert_tokens_served_again(api_client: TestClient, minted: Tokens) -> None:
    valid = _until_served(lambda: api_client.get("/api/me", headers=bearer(minted.valid)), "valid token")
    assert valid.status_code == 200, valid.text
    assert api_client.get("/api/me", headers=bearer(minted.revoked)).status_code == 401


def assert_sessions_served_again(sessions: Sessions) -> None:
    live = _until_served(sessions.me, "live session")
    assert live.status_code == 200 and live.json()["signed_in"] is True, live.text
    assert sessions.me(sessions.ended).json() == {"signed_in": False}
