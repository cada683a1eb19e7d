"""Every cookie a production App sets is ``Secure``, even where the request cannot tell it came
over https: real uvicorn processes on loopback, reached as a TLS-terminating proxy on the same
machine reaches them (plain http, the internal ``Host`` ``127.0.0.1:<port>`` of its upstream, no
``X-Forwarded-Proto``), which looks like plain-http loopback development.

The proxy is played by :class:`Proxy`: it forwards whatever cookies the App set, as the https
browser behind it would send them back (an http client would withhold ``Secure`` cookies), and
keeps every ``Set-Cookie`` header the App answered. A ``dev`` App on ``http://localhost`` keeps
plain ``fw_session`` cookies without ``Secure``, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx2

from e2e.support import PYTHON, REPO, clean_env, free_port, serving
from fw.rdb.migrate import upgrade
from fw.testing.passkeys import SoftAuthenticator

APP = REPO / "tests" / "e2e" / "apps" / "passkey_app.py"
PUBLIC = "https://shop.example.com"
PATH = "/auth/passkey"


class Proxy:
    """Forwards requests to the App over plain http with an internal Host, as a proxy terminating
    TLS does, carrying the cookies the browser holds; records every ``Set-Cookie`` answered."""

    def __init__(self, origin: str, *, page: str, host: str | None = None) -> None:
        headers = {"host": host} if host else {}  # by default the upstream's own: 127.0.0.1:<port>
        self.client = httpx2.Client(base_url=origin, headers=headers, follow_redirects=False)
        self.page = page
        self.jar: dict[str, str] = {}
        self.set_cookies: list[str] = []

    def request(self, method: str, path: str, body: Any = None) -> httpx2.Response:
        headers = {"origin": self.page}
        if self.jar:
            headers["cookie"] = "; ".join(f"{name}={value}" for name, value in self.jar.items())
        response = self.client.request(method, path, json=body, headers=headers)
        for header in response.headers.get_list("set-cookie"):
            self.set_cookies.append(header)
            name, _, rest = header.partition("=")
            value = rest.split(";", 1)[0]
            if "Max-Age=0" in header:
                self.jar.pop(name, None)
            else:
                self.jar[name] = value
        return response

    def close(self) -> None:
        self.client.close()


def attributes(header: str) -> dict[str, str]:
    """The attributes of one ``Set-Cookie`` header (lower-case names), the cookie itself left out."""
    found = {}
    for part in header.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        found[name.lower()] = value
    return found


def named(headers: list[str], name: str) -> list[str]:
    return [header for header in headers if header.startswith(f"{name}=")]


@contextlib.contextmanager
def app_process(tmp_path: Path, env: Mapping[str, str]) -> Iterator[str]:
    """One uvicorn process of the passkey test app, configured by ``env``; its loopback origin."""
    dsn = f"sqlite:///{tmp_path / 'app.sqlite3'}"
    asyncio.run(upgrade(dsn))
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    settings = clean_env(
        {"MIDDLEWARE_RDB_DSN": dsn, "AUTH_ENABLED": "true", "SESSION_ENABLED": "true", **env}
    )
    with serving(
        [PYTHON, str(APP), "--server-port", str(port)],
        env=settings,
        cwd=tmp_path,
        ready_url=f"{origin}/me",
        log=tmp_path / "app.log",
    ):
        yield origin


def passkey_env(app_env: str, page: str, rp_id: str) -> dict[str, str]:
    """``passkey_only`` with the remembered visitor on, for a page at ``page``."""
    return {
        "APP_ENV": app_env,
        "AUTH_MODE": "passkey_only",
        "AUTH_PASSKEY_RP_ID": rp_id,
        "AUTH_PASSKEY_RP_NAME": "Shop",
        "AUTH_PASSKEY_ORIGINS": page,
        "AUTH_RECOVERY_POLICY": "administrator",
        "AUTH_REGISTRATION_POLICY": "invite",
        "AUTH_ASSURANCE_HINT_ENABLED": "true",
        "AUTH_HINT_SECRET": secrets.token_urlsafe(32),
    }


def enroll_sign_out_and_sign_in(browser: Proxy, session_cookie: str) -> None:
    """A bootstrap credential, a passkey registered with it, a logout, a passkey sign-in: every
    cookie a passkey App sets, once at least; ``session_cookie`` is what the App reads."""
    issued = browser.request("POST", "/admin/bootstrap/alice").json()
    assert browser.request("POST", f"{PATH}/bootstrap", issued).status_code == 200
    authenticator = SoftAuthenticator(browser.page)
    options = browser.request("POST", f"{PATH}/register/begin").json()
    registered = browser.request("POST", f"{PATH}/register/finish", authenticator.create(options))
    assert registered.status_code == 200, registered.text
    account = browser.request("GET", "/me").json()["account_id"]
    assert account and session_cookie in browser.jar
    assert browser.request("POST", "/auth/logout").status_code == 303
    assert browser.request("GET", "/me").json()["account_id"] is None
    options = browser.request("POST", f"{PATH}/login/begin").json()
    finished = browser.request("POST", f"{PATH}/login/finish", authenticator.get(options))
    assert finished.status_code == 200, finished.text
    assert browser.request("GET", "/me").json()["account_id"] == account


def test_a_prod_app_behind_a_plain_http_proxy_sets_only_secure_cookies_and_a_host_prefixed_session(
    tmp_path: Path,
) -> None:
    env = passkey_env("prod", PUBLIC, "shop.example.com")
    with app_process(tmp_path, env) as origin:
        browser = Proxy(origin, page=PUBLIC)
        try:
            enroll_sign_out_and_sign_in(browser, "__Host-fw_session")
            value = browser.jar["__Host-fw_session"]
            # The unprefixed name is not read: a sibling subdomain cannot plant a session under it.
            plain = httpx2.get(f"{origin}/me", headers={"cookie": f"fw_session={value}"})
            assert plain.json()["account_id"] is None
        finally:
            browser.close()
    headers = browser.set_cookies
    names = {header.partition("=")[0] for header in headers}
    assert {"__Host-fw_session", "fw_enroll", "fw_passkey", "fw_reconfirm", "fw_visitor"} <= names
    assert "fw_session" not in names
    assert [header for header in headers if "secure" not in attributes(header)] == []
    for header in named(headers, "__Host-fw_session"):
        cookie = attributes(header)
        assert cookie["path"] == "/" and "domain" not in cookie and "httponly" in cookie


def test_a_prod_app_seals_a_sign_in_in_progress_into_a_secure_cookie_behind_a_plain_http_proxy(
    tmp_path: Path,
) -> None:
    env = {
        "APP_ENV": "prod",
        "AUTH_MODE": "oauth_only",
        "AUTH_OAUTH_PROVIDER": "x",
        "AUTH_OAUTH_CLIENT_ID": "shop",
        "AUTH_OAUTH_CLIENT_SECRET": secrets.token_urlsafe(16),
        "AUTH_OAUTH_REDIRECT_URL": f"{PUBLIC}/auth/callback",
    }
    with app_process(tmp_path, env) as origin:
        browser = Proxy(origin, page=PUBLIC)
        try:
            assert browser.request("GET", "/auth/login").status_code == 302  # to the provider
            refused = browser.request("GET", "/auth/callback?state=forged&code=x")
            assert refused.status_code == 400
        finally:
            browser.close()
    [started, kept] = named(browser.set_cookies, "fw_login")
    assert "secure" in attributes(started) and "secure" in attributes(kept)


def test_a_dev_app_on_plain_http_localhost_keeps_fw_session_without_secure(tmp_path: Path) -> None:
    page = "http://localhost"
    with app_process(tmp_path, passkey_env("dev", page, "localhost")) as origin:
        port = origin.rsplit(":", 1)[1]
        browser = Proxy(origin, page=page, host=f"localhost:{port}")
        try:
            enroll_sign_out_and_sign_in(browser, "fw_session")
        finally:
            browser.close()
    headers = browser.set_cookies
    assert named(headers, "fw_session") and not named(headers, "__Host-fw_session")
    assert [header for header in headers if "secure" in attributes(header)] == []
