"""Signed-in browsers in every browser mode, configured the way an application is, and a clock.

:func:`signed_in` builds an App inside :func:`fw.testing.configured` for one of the four browser
modes (with a development provider, the X-shaped stand-in or a software authenticator), signs a
person in and yields a :class:`Tab` that reports presence, reads who the browser remembers and
signs out. :class:`Clock` moves ``time.time`` forward, as the session rules read it.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from auth_oauth.support import x_table
from auth_oidc.support import to_toml
from auth_passkey_modes.support import PasskeyBrowser, passkey_table
from starlette.testclient import TestClient

import fw
from fw.testing import BrowserClient, identity_provider, oauth_provider

ORIGIN = "http://localhost"
MODES = ("oidc_only", "oidc_passkey", "passkey_only", "oauth_only")
LOGOUT = "/auth/logout"
REPORT = f"{LOGOUT}/presence"
FORGET = f"{LOGOUT}/forget"
#: A sealing secret for the remembered visitor (32 random bytes, base64url).
HINT_SECRET = secrets.token_urlsafe(32)


# Each test app declares its own routes, as a project would; they share a route's shape, not code.
def make_app() -> fw.App:
    """A page showing the signed-in user, one showing who the browser remembers, a protected page."""
    app = fw.App()

    @app.route("GET /")
    async def home(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "home"})

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:
            return fw.JSONResponse({"signed_in": False})
        return fw.JSONResponse({"signed_in": True, "account_id": user.account_id, "issuer": user.issuer})

    @app.route("GET /visitor")
    async def visitor(request: fw.Request) -> fw.Response:
        found = fw.auth.remembered(request)
        if found is None:
            return fw.JSONResponse(None)
        return fw.JSONResponse({"issuer": found.issuer, "masked_identifier": found.masked_identifier})

    @app.route("GET /private/{rest...}")
    async def private(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": request.url.path})

    return app


@dataclass
class Tab:
    """One browser (its cookies) on the App; ``sign_in`` signs its person in again."""

    client: TestClient
    sign_in: Callable[[], None]
    #: What the person's identifier looks like masked, and the issuer that signs them in.
    masked: str
    issuer: str

    def report(self, active: bool = True, gap: float = 1.0, **kw: Any) -> httpx2.Response:
        headers = {"origin": ORIGIN, **kw.pop("headers", {})}
        return self.client.post(REPORT, json={"active": active, "gap": gap}, headers=headers, **kw)

    def post(self, path: str, **kw: Any) -> httpx2.Response:
        headers = {"origin": ORIGIN, **kw.pop("headers", {})}
        return self.client.post(path, headers=headers, follow_redirects=False, **kw)

    def me(self) -> dict[str, Any]:
        return dict(self.client.get("/me").json())

    def signed_in(self) -> bool:
        return bool(self.me()["signed_in"])

    def visitor(self) -> dict[str, str] | None:
        found = self.client.get("/visitor").json()
        return dict(found) if found is not None else None

    def logout(self) -> httpx2.Response:
        return self.post(LOGOUT)


class Clock:
    """``time.time`` plus an offset the test moves forward."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = 0.0
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() + self.offset)

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def _auth_table(mode: str, assurance: Mapping[str, Any], auth: Mapping[str, Any]) -> dict[str, Any]:
    table: dict[str, Any] = {
        "enabled": True,
        "mode": mode,
        "protection": {"include": ["/private/"]},
        "assurance": dict(assurance),
        **auth,
    }
    if mode in ("oidc_passkey", "passkey_only"):
        table["passkey"] = passkey_table(**table.get("passkey", {}))
    if mode == "oidc_passkey":
        table.setdefault("recovery", {"policy": "oidc"})
    if mode == "passkey_only":
        table.setdefault("recovery", {"policy": "administrator"})
        table.setdefault("registration", {"policy": "invite"})
    return table


def toml_for(
    mode: str,
    dsn: str,
    *,
    provider: Mapping[str, Any] | None = None,
    assurance: Mapping[str, Any] | None = None,
    session_table: Mapping[str, Any] | None = None,
    **auth: Any,
) -> str:
    """The configuration file of ``mode`` with these ``[auth.assurance]`` tables, ``[auth]`` keys
    (``session={"ttl": "1h"}`` is ``[auth.session]``) and ``[session]`` keys (``session_table``)."""
    table = _auth_table(mode, assurance or {}, auth)
    if provider is not None:
        name = "oauth" if mode == "oauth_only" else "oidc"
        table[name] = {**provider, **table.get(name, {})}
    return to_toml(
        {
            "auth": table,
            "session": {"enabled": True, "backend": "rdb", **(session_table or {})},
            "middleware": {"rdb": {"dsn": dsn}},
        }
    )


@contextlib.contextmanager
def signed_in(
    mode: str,
    dsn: str,
    *,
    env: Mapping[str, str] | None = None,
    sign_in: bool = True,
    **changes: Any,
) -> Iterator[Tab]:
    """An App of ``mode`` with these changes (lifespan on) and a browser signed in to it."""
    variables = {"AUTH_HINT_SECRET": HINT_SECRET, **(env or {})}
    with contextlib.ExitStack() as stack:
        if mode == "passkey_only":
            stack.enter_context(fw.testing.configured(toml=toml_for(mode, dsn, **changes), env=variables))
            client = stack.enter_context(TestClient(make_app(), base_url=ORIGIN))
            browser = PasskeyBrowser(client)

            def enrol() -> None:
                if browser.authenticator.credentials:
                    assert browser.login().status_code == 200
                    return
                credential = browser.call(fw.auth.issue_bootstrap_credential, "alice@example.test")
                assert browser.bootstrap("alice@example.test", credential.secret).status_code == 200
                assert browser.register().status_code == 200

            tab = Tab(client, enrol, "a•••••@example.test", "passkey")
        elif mode == "oauth_only":
            x = stack.enter_context(oauth_provider(login_user="alice"))
            provider = x_table(x)
            variables["AUTH_OAUTH_CLIENT_SECRET"] = x.client_secret
            toml = toml_for(mode, dsn, provider=provider, **changes)
            stack.enter_context(fw.testing.configured(toml=toml, env=variables))
            client = stack.enter_context(BrowserClient(make_app(), x, base_url=ORIGIN))
            tab = Tab(client, lambda: _landed(client.login()), "a•••••", "x")
        else:
            idp = stack.enter_context(identity_provider())
            provider = {"issuer": idp.issuer, "client_id": idp.client_id, "allow_loopback_http": True}
            variables["AUTH_OIDC_CLIENT_SECRET"] = idp.client_secret
            toml = toml_for(mode, dsn, provider=provider, **changes)
            stack.enter_context(fw.testing.configured(toml=toml, env=variables))
            client = stack.enter_context(BrowserClient(make_app(), idp, base_url=ORIGIN))
            tab = Tab(client, lambda: _landed(client.login("alice")), "a•••••@example.test", idp.issuer)
        if sign_in:
            tab.sign_in()
            assert tab.signed_in()
        yield tab


def _landed(response: httpx2.Response) -> None:
    assert response.status_code == 200, response.text
