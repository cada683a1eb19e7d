"""Presence in a real browser (headless Chromium via Playwright) against a real app process: the
served script keeps a tab someone works in signed in, and a tab that stops reporting (hidden)
is signed out once ``absent_after`` passes, its screen no longer showing the private page.

Short settings: a tick every second, absence after four (room for a loaded machine). Headless
Chromium keeps every tab visible, so the hidden tab is emulated the way the page would see it:
``visibilityState`` reads ``hidden`` and ``visibilitychange`` fires.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.support import CHROMIUM, CHROMIUM_ARGS, REPO, app_processes, clean_env
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider

APP = REPO / "tests" / "e2e" / "apps" / "presence_app.py"
REPORT = "/auth/logout/presence"

HIDE = """() => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.fixture
def origin(tmp_path: Path, idp: TestIdentityProvider) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (bash .ci/run installs the Debian chromium package)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    asyncio.run(upgrade(dsn))
    env = clean_env(
        {
            **idp.env,
            "APP_ENV": "dev",
            "AUTH_ENABLED": "true",
            "AUTH_MODE": "oidc_only",
            "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true",
            "AUTH_PROTECTION_INCLUDE": "/private/",
            "AUTH_ASSURANCE_PRESENCE_ENABLED": "true",
            "AUTH_ASSURANCE_PRESENCE_INTERVAL": "1s",
            "AUTH_ASSURANCE_PRESENCE_ABSENT_AFTER": "4s",
            "SESSION_ENABLED": "true",
            "MIDDLEWARE_RDB_DSN": dsn,
        }
    )
    idp.login_user("alice")
    with app_processes(APP, env, tmp_path, count=1) as (running,):
        yield running


def signed_in_page(browser: Any, origin: str) -> tuple[Any, list[int]]:
    """A page signed in through the provider, showing the private page; the statuses of its reports."""
    page = browser.new_page()
    reports: list[int] = []
    page.on("response", lambda r: reports.append(r.status) if r.url == f"{origin}{REPORT}" else None)
    page.goto(f"{origin}/private/page")
    page.wait_for_url(f"{origin}/private/page")
    assert page.inner_text("#secret") == "Alice Example"
    page.wait_for_function("() => window.fwPresence !== undefined")
    return page, reports


def wait_for_a_report(page: Any, reports: list[int]) -> None:
    deadline = time.monotonic() + 10
    while not reports:
        assert time.monotonic() < deadline, "the page never reported"
        page.wait_for_timeout(100)


def signed_in(page: Any) -> bool:
    return page.evaluate("() => fetch('/me').then(r => r.json()).then(me => me.account_id !== null)")


def test_a_tab_someone_works_in_stays_signed_in_past_absent_after(origin: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page, reports = signed_in_page(browser, origin)
            deadline = time.monotonic() + 10  # well past absent_after (4s)
            x = 10
            while time.monotonic() < deadline:
                x = 30 if x == 10 else 10
                page.mouse.move(x, 40)  # the person is there: input between ticks
                page.wait_for_timeout(300)
            assert signed_in(page)
            assert page.inner_text("#secret") == "Alice Example"
            assert len(reports) >= 5 and set(reports) == {204}
        finally:
            browser.close()


def test_a_tab_without_input_is_signed_out_and_stops_showing_the_private_page(
    origin: str, idp: TestIdentityProvider
) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page, reports = signed_in_page(browser, origin)
            idp.login_user(None)  # from now on the provider asks who is there
            page.wait_for_timeout(1500)
            assert signed_in(page)
            # Nobody touches the page: a tick is told 401, the script reloads the page, the
            # protected page sends the browser to sign in, and the provider asks who is there.
            page.wait_for_selector("text=Choose a user", timeout=15_000)
            assert 401 in reports and reports.count(204) >= 1
            assert "prompt=login" in page.url  # the next sign-in proves again
            assert page.query_selector("#secret") is None  # the private page is gone from the screen
        finally:
            browser.close()


def test_a_hidden_tab_stops_reporting_and_is_signed_out_after_absent_after(origin: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page, reports = signed_in_page(browser, origin)
            page.mouse.move(20, 20)
            wait_for_a_report(page, reports)
            assert set(reports) == {204}
            page.evaluate(HIDE)
            page.wait_for_timeout(300)  # a tick already on its way may still land
            sent = len(reports)
            page.wait_for_timeout(5000)  # more than absent_after, hidden all along
            assert len(reports) == sent  # the beacon stopped
            assert not signed_in(page)  # the server noticed the silence at the next request
            cookies = {c["name"]: c["value"] for c in page.context.cookies()}
            assert "fw_session" not in cookies and cookies.get("fw_reconfirm") == "1"
        finally:
            browser.close()
