"""Passkey-mode apps configured the way an application is, and a browser that holds passkeys.

:func:`passkey_app` builds an App inside :func:`fw.testing.configured` from the keys a test
changes; :class:`PasskeyBrowser` is a TestClient on ``http://localhost`` (RP ID ``localhost``)
that sends the page's ``Origin`` and answers ceremonies with a :class:`SoftAuthenticator`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any, TypeVar

import httpx2
from auth_oidc.support import make_app, to_toml
from pillars import the_pillar
from starlette.testclient import TestClient

from fw.testing import BrowserClient, TestIdentityProvider, configured
from fw.testing.passkeys import SoftAuthenticator

ORIGIN = "http://localhost"
PATH = "/auth/passkey"
T = TypeVar("T")


def passkey_table(**changes: Any) -> dict[str, Any]:
    return {"rp_id": "localhost", "rp_name": "fw tests", "origins": [ORIGIN], **changes}


def passkey_only_toml(dsn: str, **auth: Any) -> str:
    """``passkey_only`` with the keys a test changes (``passkey={...}``, ``bootstrap={...}``...)."""
    table: dict[str, Any] = {
        "enabled": True,
        "mode": "passkey_only",
        "protection": {"include": ["/private/"], "unauthenticated": "unauthorized"},
        "recovery": {"policy": "administrator"},
        "registration": {"policy": "invite"},
        **auth,
    }
    table["passkey"] = passkey_table(**table.get("passkey", {}))
    return to_toml(
        {"auth": table, "session": {"enabled": True, "backend": "rdb"}, "middleware": {"rdb": {"dsn": dsn}}}
    )


def oidc_passkey_toml(issuer: str, client_id: str, dsn: str, **auth: Any) -> str:
    table: dict[str, Any] = {
        "enabled": True,
        "mode": "oidc_passkey",
        "protection": {"include": ["/private/"]},
        "recovery": {"policy": "oidc"},
        **auth,
    }
    table["passkey"] = passkey_table(**table.get("passkey", {}))
    table["oidc"] = {
        "issuer": issuer,
        "client_id": client_id,
        "allow_loopback_http": issuer.startswith("http://"),
        **table.get("oidc", {}),
    }
    return to_toml(
        {"auth": table, "session": {"enabled": True, "backend": "rdb"}, "middleware": {"rdb": {"dsn": dsn}}}
    )


class PasskeyBrowser:
    """A browser page at :data:`ORIGIN` with its own authenticator."""

    def __init__(self, client: TestClient, authenticator: SoftAuthenticator | None = None) -> None:
        self.client = client
        self.authenticator = authenticator or SoftAuthenticator(ORIGIN)

    def post(self, suffix: str, body: Any = None, **kw: Any) -> httpx2.Response:
        headers = {"origin": ORIGIN, **kw.pop("headers", {})}
        if body is None:
            return self.client.post(PATH + suffix, headers=headers, **kw)
        return self.client.post(PATH + suffix, json=body, headers=headers, **kw)

    def begin_registration(self) -> dict[str, Any]:
        response = self.post("/register/begin")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def register(self, **create: Any) -> httpx2.Response:
        answer = self.authenticator.create(self.begin_registration(), **create)
        return self.post("/register/finish", answer)

    def begin_login(self) -> dict[str, Any]:
        response = self.post("/login/begin")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def login(self, **get: Any) -> httpx2.Response:
        answer = self.authenticator.get(self.begin_login(), **get)
        return self.post("/login/finish", answer)

    def bootstrap(self, login_id: str, secret: str) -> httpx2.Response:
        return self.post("/bootstrap", {"login_id": login_id, "secret": secret})

    def me(self) -> dict[str, Any]:
        return dict(self.client.get("/me").json())

    def logout(self) -> httpx2.Response:
        return self.client.post("/auth/logout", headers={"origin": ORIGIN}, follow_redirects=False)

    def call(self, fn: Callable[..., Awaitable[T]], *args: Any, **kw: Any) -> T:
        """Run one of fw.auth's async calls in the App's event loop."""
        portal = self.client.portal
        assert portal is not None
        return portal.call(functools.partial(fn, *args, **kw))


def age_the_proof(browser: PasskeyBrowser, seconds: int) -> None:
    """Move the browser's session proof time ``seconds`` into the past, in the session store: as
    if the sign-in (or the last re-proof) had happened that long ago."""
    extension = the_pillar(browser.client.app)  # type: ignore[attr-defined]
    sessions = extension.oidc.sessions if hasattr(extension, "oidc") else extension.live.sessions
    cookie = browser.client.cookies.get("fw_session")
    assert cookie, "the browser is not signed in"

    async def age() -> None:
        active = await sessions.resume(cookie, touch=False)
        assert active is not None and active.summary.auth_time is not None
        earlier = active.summary.auth_time - seconds
        await sessions.refresh(active, dataclasses.replace(active.summary, auth_time=earlier))
        assert active.value == cookie  # the store kept the token

    browser.call(age)


def user_app() -> Any:
    """The test App with a page showing the user's sign-in method too."""
    import fw

    app = make_app()

    @app.route("GET /method")
    async def method(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse({"method": user.method if user else None})

    return app


@contextlib.contextmanager
def passkey_only(dsn: str, env: Mapping[str, str] | None = None, **auth: Any) -> Iterator[PasskeyBrowser]:
    """A ``passkey_only`` App (lifespan on) and one browser on it."""
    with (
        configured(toml=passkey_only_toml(dsn, **auth), env=env),
        TestClient(user_app(), base_url=ORIGIN) as client,
    ):
        yield PasskeyBrowser(client)


@contextlib.contextmanager
def oidc_passkey(
    idp: TestIdentityProvider, dsn: str, **auth: Any
) -> Iterator[tuple[PasskeyBrowser, BrowserClient]]:
    env = {"AUTH_OIDC_CLIENT_SECRET": idp.client_secret}
    toml = oidc_passkey_toml(idp.issuer, idp.client_id, dsn, **auth)
    with configured(toml=toml, env=env), BrowserClient(user_app(), idp, base_url=ORIGIN) as client:
        yield PasskeyBrowser(client), client


def another_browser(browser: PasskeyBrowser) -> PasskeyBrowser:
    """A second browser (own cookies) on the same App, sharing nothing but the server."""
    client = browser.client
    other = TestClient(client.app, base_url=ORIGIN)
    other.portal = client.portal
    return PasskeyBrowser(other, browser.authenticator)
