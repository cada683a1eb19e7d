"""Headless Chromium with a DevTools virtual authenticator, for end-to-end passkey tests.

``passkey_browser()`` opens a page in Debian's chromium (no browser download) and attaches a
virtual CTAP2 platform authenticator through a CDP session (``WebAuthn.enable``,
``WebAuthn.addVirtualAuthenticator``): resident keys, user verification that succeeds, presence
simulated. ``navigator.credentials.create/get`` on that page then work without a person, so
``passkey.js`` runs exactly as it does for a user. WebAuthn needs a secure context and a domain RP
ID: serve on 127.0.0.1 and browse ``http://localhost:<port>`` (RP ID ``localhost``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from e2e.support import CHROMIUM, CHROMIUM_ARGS

if TYPE_CHECKING:
    from playwright.sync_api import CDPSession, Page


@dataclass
class VirtualAuthenticator:
    """The DevTools authenticator attached to one page, and what can be asked of it."""

    session: CDPSession
    authenticator_id: str

    def credentials(self) -> list[dict[str, Any]]:
        """The credentials it holds (``credentialId``, ``isResidentCredential``, ``rpId``,
        ``userHandle``, ``signCount``...), Base64-encoded as DevTools reports them."""
        answer = self.session.send("WebAuthn.getCredentials", {"authenticatorId": self.authenticator_id})
        return list(answer["credentials"])

    def set_user_verified(self, verified: bool) -> None:
        """Whether the next user verification succeeds."""
        self.session.send(
            "WebAuthn.setUserVerified", {"authenticatorId": self.authenticator_id, "isUserVerified": verified}
        )

    def clear_credentials(self) -> None:
        """Forget every credential (a lost or wiped device)."""
        self.session.send("WebAuthn.clearCredentials", {"authenticatorId": self.authenticator_id})


@dataclass
class PasskeyBrowser:
    page: Page
    authenticator: VirtualAuthenticator


def require_chromium() -> None:
    """Skip, visibly, where the browser or Playwright is missing."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (bash .ci/run installs the Debian chromium package)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@contextlib.contextmanager
def chromium_page() -> Iterator[Page]:
    """A fresh page in headless Debian chromium; the browser closes afterwards."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()


@contextlib.contextmanager
def virtual_authenticator(page: Page) -> Iterator[VirtualAuthenticator]:
    """A CTAP2 platform authenticator with resident keys and verified users, attached to ``page``."""
    session = page.context.new_cdp_session(page)
    session.send("WebAuthn.enable", {"enableUI": False})
    added = session.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    authenticator = VirtualAuthenticator(session, added["authenticatorId"])
    try:
        yield authenticator
    finally:
        session.send(
            "WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator.authenticator_id}
        )
        session.send("WebAuthn.disable")
        session.detach()


@contextlib.contextmanager
def passkey_browser() -> Iterator[PasskeyBrowser]:
    """A page with a virtual authenticator attached: what a passkey end-to-end test drives."""
    with chromium_page() as page, virtual_authenticator(page) as authenticator:
        yield PasskeyBrowser(page, authenticator)
