"""Both passkey modes end to end: examples/passkeys under ``fw dev`` (uvicorn on 127.0.0.1, browsed
as http://localhost:PORT), headless Chromium with a DevTools virtual authenticator, every ceremony
through the ``passkey.js`` fw serves.

``passkey_only``: the admin command issues a bootstrap credential, the person redeems it and
registers a passkey, signs out, and signs in with the passkey. ``oidc_passkey``: sign in at the
development provider's user picker, register a passkey, sign out, sign in with the passkey; a
removed passkey no longer signs in.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from e2e.support import PYTHON, REPO, clean_env, free_port, serving
from e2e.webauthn import PasskeyBrowser, passkey_browser, require_chromium

PASSKEY_ONLY = ["--config-path", "config.passkey_only.toml"]


@dataclass
class Example:
    origin: str
    workdir: Path
    env: dict[str, str]


def _example(tmp_path: Path, config: list[str]) -> Iterator[Example]:
    require_chromium()
    workdir = tmp_path / "passkeys"
    shutil.copytree(
        REPO / "examples" / "passkeys", workdir, ignore=shutil.ignore_patterns("*.sqlite3", "__pycache__")
    )
    port = free_port()
    origin = f"http://localhost:{port}"  # a passkey's RP ID is a domain: localhost, never 127.0.0.1
    env = clean_env({"APP_ENV": "dev", "AUTH_PASSKEY_ORIGINS": origin})
    command = [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(port), *config]
    ready = f"http://127.0.0.1:{port}/"
    with serving(command, env=env, cwd=workdir, ready_url=ready, log=tmp_path / "fw-dev.log"):
        yield Example(origin, workdir, env)


@pytest.fixture
def passkey_only(tmp_path: Path) -> Iterator[Example]:
    yield from _example(tmp_path, PASSKEY_ONLY)


@pytest.fixture
def oidc_passkey(tmp_path: Path) -> Iterator[Example]:
    yield from _example(tmp_path, [])


@pytest.fixture
def browser() -> Iterator[PasskeyBrowser]:
    with passkey_browser() as opened:
        yield opened


def _issue(example: Example, login_id: str) -> tuple[str, str]:
    """Run the example's admin command; the login ID and secret it printed."""
    result = subprocess.run(
        [PYTHON, "admin.py", "issue", login_id, *PASSKEY_ONLY],
        cwd=example.workdir,
        env=example.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    printed = dict(re.findall(r"^(login ID|secret|expires): (\S+)$", result.stdout, re.MULTILINE))
    assert set(printed) == {"login ID", "secret", "expires"}, result.stdout
    return printed["login ID"], printed["secret"]


def _registered(browser: PasskeyBrowser, example: Example) -> None:
    """After a registration: the settings page lists one passkey, the authenticator holds it as a
    discoverable credential for ``localhost``; then back to the home page."""
    browser.page.wait_for_url(f"{example.origin}/settings")
    assert browser.page.locator("li.passkey").count() == 1
    [held] = browser.authenticator.credentials()
    assert held["isResidentCredential"] and held["rpId"] == "localhost"
    browser.page.click("#home")


def _sign_out(browser: PasskeyBrowser, example: Example) -> None:
    browser.page.click("#logout")
    browser.page.wait_for_url(f"{example.origin}/")
    assert "not signed in" in browser.page.inner_text("#status")
    assert not any(c["name"] == "fw_session" for c in browser.page.context.cookies())


def _passkey_sign_in(browser: PasskeyBrowser, example: Example) -> str:
    """Sign in with the passkey from the home page; the status line it lands on."""
    browser.page.click("#passkey-login")
    # Signed in (the landing page names the user) or refused (the problem's detail is shown).
    browser.page.wait_for_function(
        """() => document.getElementById('status')?.textContent.startsWith('Signed in as')
                 || document.getElementById('message')?.textContent"""
    )
    assert browser.page.inner_text("#message") == ""
    assert browser.page.url == f"{example.origin}/"
    return browser.page.inner_text("#status")


def test_passkey_only_bootstrap_registration_logout_and_passkey_login(
    passkey_only: Example, browser: PasskeyBrowser
) -> None:
    login_id, secret = _issue(passkey_only, "ada")
    page = browser.page
    page.goto(f"{passkey_only.origin}/")
    assert "not signed in" in page.inner_text("#status")
    page.click("#enroll")
    page.fill("#login-id", login_id)
    page.fill("#secret", secret)
    page.click("#bootstrap")
    _registered(browser, passkey_only)
    assert "(by passkey)" in page.inner_text("#status")
    _sign_out(browser, passkey_only)

    assert "(by passkey)" in _passkey_sign_in(browser, passkey_only)
    page.goto(f"{passkey_only.origin}/settings")
    assert page.locator("li.passkey").count() == 1


def test_passkey_only_refuses_a_bootstrap_secret_a_second_time(
    passkey_only: Example, browser: PasskeyBrowser
) -> None:
    login_id, secret = _issue(passkey_only, "grace")
    page = browser.page
    for attempt in range(2):
        page.goto(f"{passkey_only.origin}/enroll")
        page.fill("#login-id", login_id)
        page.fill("#secret", secret)
        page.click("#bootstrap")
        if attempt == 0:
            page.wait_for_url(f"{passkey_only.origin}/settings")
            page.click("#logout")
            page.wait_for_url(f"{passkey_only.origin}/")
    page.wait_for_selector("#message:not(:empty)")
    assert page.url == f"{passkey_only.origin}/enroll"
    assert len(browser.authenticator.credentials()) == 1


def test_oidc_passkey_provider_login_registration_logout_and_passkey_login(
    oidc_passkey: Example, browser: PasskeyBrowser
) -> None:
    page = browser.page
    page.goto(f"{oidc_passkey.origin}/")
    page.click("#oidc-login")
    assert "Choose a user" in page.inner_text("h1")
    page.click("text=Alice Example")
    page.wait_for_url(f"{oidc_passkey.origin}/")
    assert page.inner_text("#status") == "Signed in as Alice Example (by oidc)."

    page.click("#register")
    _registered(browser, oidc_passkey)
    _sign_out(browser, oidc_passkey)
    assert _passkey_sign_in(browser, oidc_passkey) == "Signed in as Alice Example (by passkey)."

    # A passkey removed on the settings page signs in no more.
    page.goto(f"{oidc_passkey.origin}/settings")
    page.click("li.passkey button")
    page.wait_for_selector("#passkeys:has-text('No passkeys yet')")
    page.click("#home")
    _sign_out(browser, oidc_passkey)
    page.click("#passkey-login")
    page.wait_for_selector("#message:not(:empty)")
    assert "not signed in" in page.inner_text("#status")
