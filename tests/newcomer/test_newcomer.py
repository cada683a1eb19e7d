"""A newcomer's path from the built wheel to a signed-in page, one test per kind of project.

Each test starts in a clean terminal (tests/newcomer/terminal.py), types fw's README set-up line
with fw installed from the wheel this session built, then every command of the generated
project's README up to and including ``fw dev`` (tests/newcomer/walkthrough.py), and then does
what the README says a person does next: sign in at the development provider (``oidc_only``),
at the X stand-in (``oauth_only``), with the login ID and secret ``fw passkey bootstrap`` printed
and Chromium's virtual authenticator (``passkey_only``), or call the protected route with the
token ``fw token`` printed (the api preset). A step that a README leaves out or gets wrong fails
the test with the commands typed so far.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx2
import pytest
from e2e.webauthn import chromium_page, passkey_browser
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from newcomer.terminal import Terminal
from newcomer.walkthrough import (
    Followed,
    follow_fw_readme,
    follow_project_readme,
    printed_by,
    protected_path,
)

pytestmark = [pytest.mark.newcomer, pytest.mark.timeout(1200)]


def _provider_sign_in(followed: Followed, path: str) -> None:
    """As the README says: open the home page, choose "Sign in", pick **alice** at the
    development provider (or the X stand-in); back on the app, the protected page shows her."""
    with chromium_page() as page:
        page.goto(f"{followed.origin}/")
        sign_in = re.compile("sign in", re.IGNORECASE)
        page.get_by_role("link", name=sign_in).or_(page.get_by_role("button", name=sign_in)).first.click()
        page.locator("button[name='user']", has_text=re.compile("alice", re.IGNORECASE)).first.click()
        page.wait_for_url(re.compile(f"^{re.escape(followed.origin)}/"), timeout=30_000)
        assert any(cookie["name"] == "fw_session" for cookie in page.context.cookies())
        account = page.goto(f"{followed.origin}{path}")  # signed in: no provider on the way
        assert account is not None and account.status == 200 and page.url == f"{followed.origin}{path}"
        assert "alice" in page.inner_text("body").lower(), page.content()


def test_an_oidc_only_project_signs_a_person_in_at_the_development_provider(
    terminal: Terminal, tmp_path: Path
) -> None:
    project = follow_fw_readme(terminal, "--auth oidc_only")
    with follow_project_readme(terminal, project, tmp_path) as followed:
        _provider_sign_in(followed, protected_path(project))


# One test per mode, so a failure names the mode whose newcomer path broke; they share the arrangement.
def test_an_oauth_only_project_signs_a_person_in_at_the_x_stand_in(
    terminal: Terminal, tmp_path: Path
) -> None:
    project = follow_fw_readme(terminal, "--auth oauth_only")
    with follow_project_readme(terminal, project, tmp_path) as followed:
        _provider_sign_in(followed, protected_path(project))


def test_a_passkey_only_project_lets_a_person_register_with_the_secret_fw_passkey_bootstrap_printed(
    terminal: Terminal, tmp_path: Path
) -> None:
    project = follow_fw_readme(terminal, "--auth passkey_only")
    with follow_project_readme(terminal, project, tmp_path) as followed:
        printed = printed_by(followed, terminal, "fw", "passkey", "bootstrap")
        handed = dict(re.findall(r"^(login ID|secret|sign in):\s+(\S+)\s*$", printed, re.MULTILINE))
        assert set(handed) == {"login ID", "secret", "sign in"}, printed
        assert handed["sign in"].startswith(followed.origin), (handed["sign in"], followed.origin)
        with passkey_browser() as browser:
            page = browser.page
            page.goto(handed["sign in"])
            page.get_by_label("Login ID").fill(handed["login ID"])
            page.get_by_label(re.compile("secret", re.IGNORECASE)).fill(handed["secret"])
            page.get_by_role("button", name=re.compile("register", re.IGNORECASE)).click()
            try:  # registered and signed in: the page moves on (a refusal stays, with its message)
                page.wait_for_url(
                    lambda url: url.startswith(followed.origin) and url != handed["sign in"], timeout=30_000
                )
            except PlaywrightTimeout:
                raise AssertionError(f"still on the sign-in page: {page.inner_text('main')}") from None
            [held] = browser.authenticator.credentials()
            assert held["isResidentCredential"] and held["rpId"] == "localhost"
            assert any(cookie["name"] == "fw_session" for cookie in page.context.cookies())
            path = protected_path(project)  # "/account shows your account"
            account = page.goto(f"{followed.origin}{path}")
            assert account is not None and account.status == 200 and page.url == f"{followed.origin}{path}"


def test_an_api_project_answers_its_protected_route_with_the_token_fw_token_printed(
    terminal: Terminal, tmp_path: Path
) -> None:
    project = follow_fw_readme(terminal, "--preset api")
    with follow_project_readme(terminal, project, tmp_path) as followed:
        token = printed_by(followed, terminal, "fw", "token").strip()
        assert token and "\n" not in token, f"fw token gave {token!r}; {followed.summary()}"
        url = f"http://127.0.0.1:{followed.port}{protected_path(project)}"
        assert httpx2.get(url, timeout=10).status_code == 401
        answer = httpx2.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert answer.status_code == 200, answer.text
