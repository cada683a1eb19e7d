"""One running site per browser mode, so an attack is written once and run against each.

``oidc_only`` and ``oidc_passkey`` sign in through the development OpenID provider,
``oauth_only`` through the X-shaped stand-in; each App is configured the way a project is
(:func:`fw.testing.configured`) on a migrated SQLite database the test can count sessions in.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from auth_oauth.support import oauth_layers
from auth_oidc.support import layers, make_app
from auth_passkey_modes.support import oidc_passkey_toml

from fw.testing import BrowserClient, configured, identity_provider, oauth_provider
from fw.testing.browser import SignInProvider

ORIGIN = "http://localhost"
OIDC_MODES = ("oidc_only", "oidc_passkey")
BROWSER_MODES = (*OIDC_MODES, "oauth_only")


@dataclass
class Site:
    """A running App in ``mode``, its provider, its database and a first browser on it."""

    mode: str
    provider: Any  # TestIdentityProvider or TestOAuthProvider
    dsn: str
    browser: BrowserClient

    def another_browser(self) -> BrowserClient:
        """A second browser (its own cookie jar) on the same running App."""
        other = BrowserClient(self.browser.app, self.provider, base_url=ORIGIN)
        other.portal = self.browser.portal
        return other

    def callback_url(self, browser: BrowserClient | None = None, *, who: str = "alice", **query: str) -> str:
        """Start a sign-in and pass the provider as ``who``: the callback URL, not yet visited."""
        client = browser or self.browser
        self.provider.login_user(who)
        to_provider = client.get("/auth/login", params=query or None, follow_redirects=False)
        assert to_provider.status_code in (302, 303, 307), to_provider.text
        back = client.get(to_provider.headers["location"], follow_redirects=False)
        assert back.status_code in (302, 303), back.text
        return str(back.headers["location"])

    def sign_in(self, browser: BrowserClient | None = None, *, who: str = "alice") -> httpx2.Response:
        client = browser or self.browser
        landed = client.get(self.callback_url(client, who=who), follow_redirects=False)
        assert landed.status_code == 303, landed.text
        return landed

    def who(self, browser: BrowserClient | None = None) -> str | None:
        """The account the browser is signed in as, or ``None``."""
        answer = (browser or self.browser).get("/me").json()
        return str(answer["account_id"]) if answer["signed_in"] else None

    def account_of(self, who: str) -> str:
        """The account the store links to the provider's user ``who`` (its ``sub``, or for
        ``oauth_only`` the user ID behind that username)."""
        claim = who if self.mode in OIDC_MODES else self.provider.state.user(who).id
        path = self.dsn.removeprefix("sqlite:///")
        with contextlib.closing(sqlite3.connect(path)) as db:
            [(account_id,)] = db.execute(
                "select account_id from fw_accounts where claim_value = ?", (claim,)
            ).fetchall()
        return str(account_id)

    def sessions(self) -> int:
        """Sessions in the store (the row holding the login-state key is not one)."""
        path = self.dsn.removeprefix("sqlite:///")
        with contextlib.closing(sqlite3.connect(path)) as db:
            return int(db.execute("select count(*) from fw_sessions where account_id != ''").fetchone()[0])

    def accounts(self) -> int:
        path = self.dsn.removeprefix("sqlite:///")
        with contextlib.closing(sqlite3.connect(path)) as db:
            return int(db.execute("select count(*) from fw_accounts").fetchone()[0])


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def _configuration(mode: str, provider: Any, dsn: str) -> dict[str, Any]:
    if mode == "oidc_only":
        return layers(
            provider.issuer, dsn, client_id=provider.client_id, client_secret=provider.client_secret
        )
    if mode == "oidc_passkey":
        toml = oidc_passkey_toml(provider.issuer, provider.client_id, dsn)
        return {"toml": toml, "env": {"AUTH_OIDC_CLIENT_SECRET": provider.client_secret}}
    return oauth_layers(provider, dsn)


@contextlib.contextmanager
def running_site(mode: str, dsn: str) -> Iterator[Site]:
    """The App of ``mode`` with lifespan on, its provider on loopback, one browser."""
    provider_context = oauth_provider() if mode == "oauth_only" else identity_provider()
    with provider_context as provider, configured(**_configuration(mode, provider, dsn)):
        signer: SignInProvider = provider
        with BrowserClient(make_app(), signer, base_url=ORIGIN) as browser:
            yield Site(mode, provider, dsn, browser)
