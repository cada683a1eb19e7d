"""Presence in a real browser (headless Chromium via Playwright) against a real app process: the
served script keeps a tab someone works in signed in, and a tab that stops reporting (hidden)
is signed out once ``absent_after`` passes, its screen no longer showing the private page.

Short settings: a tick every second, absence after six (room for a loaded machine: the tests
wait for events, a report or a page, and sleep only where absence itself must pass). Headless
Chromium keeps every tab visible, so the hidden tab is emulated the way the page would see it:
``visibilityState`` reads ``hidden`` and ``visibilitychange`` fires.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from e2e.support import CHROMIUM, CHROMIUM_ARGS, REPO, app_processes, oidc_only_env
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider

APP = REPO / "tests" / "e2e" / "apps" / "presence_app.py"
REPORT = "/auth/logout/presence"
#: The presence settings of the app under test, in seconds.
INTERVAL = 1
ABSENT_AFTER = 6
#: How long the tests wait for something that takes a second or two, however loaded the machine.
PATIENCE = 30

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
    env = oidc_only_env(
        {
            **idp.env,
            "AUTH_ASSURANCE_PRESENCE_ENABLED": "true",
            "AUTH_ASSURANCE_PRESENCE_INTERVAL": f"{INTERVAL}s",
            "AUTH_ASSURANCE_PRESENCE_ABSENT_AFTER": f"{ABSENT_AFTER}s",
            "MIDDLEWARE_RDB_DSN": dsn,
        }
    )
    idp.login_user("alice")
    with app_processes(APP, env, tmp_path, count=1) as (running,):
        yield running


@dataclass
class Reports:
    """The presence reports a page sent, and the statuses of those answered so far."""

    sent: int = 0
    answered: list[int] = field(default_factory=list)


def signed_in_page(browser: Any, origin: str) -> tuple[Any, Reports]:
    """A page signed in through the provider, showing the private page; its reports."""
    page = browser.new_page()
    reports = Reports()

    def sent(request: Any) -> None:
        if request.url == f"{origin}{REPORT}":
            reports.sent += 1

    page.on("request", sent)
    page.on("response", lambda r: reports.answered.append(r.status) if r.url == f"{origin}{REPORT}" else None)
    page.goto(f"{origin}/private/page")
    page.wait_for_url(f"{origin}/private/page")
    assert page.inner_text("#secret") == "Alice Example"
    page.wait_for_function("() => window.fwPresence !== undefined")
    return page, reports


def wait_for_reports(page: Any, reports: Reports) -> None:
    """Until the page has had a report answered, and none it sent is still on its way."""
    deadline = time.monotonic() + PATIENCE
    while not reports.answered or len(reports.answered) < reports.sent:
        assert time.monotonic() < deadline, f"{reports.sent} reports sent, {reports.answered} answered"
        page.wait_for_timeout(50)


def signed_in(page: Any) -> bool:
    return page.evaluate("() => fetch('/me').then(r => r.json()).then(me => me.account_id !== null)")


def test_a_tab_someone_works_in_stays_signed_in_past_absent_after(origin: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page, reports = signed_in_page(browser, origin)
            until = time.monotonic() + 2 * ABSENT_AFTER  # well past absent_after (at least this long)
            x = 10
            while time.monotonic() < until:
                x = 30 if x == 10 else 10
                page.mouse.move(x, 40)  # the person is there: input between ticks
                page.wait_for_timeout(300)
            assert signed_in(page)
            assert page.inner_text("#secret") == "Alice Example"
            assert len(reports.answered) >= 5 and set(reports.answered) == {204}
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
            wait_for_reports(page, reports)
            assert reports.answered[0] == 204  # the first tick, a second in: the session is still there
            # Nobody touches the page: a tick is told 401, the script reloads the page, the
            # protected page sends the browser to sign in, and the provider asks who is there.
            page.wait_for_selector("text=Choose a user", timeout=(ABSENT_AFTER + PATIENCE) * 1000)
            assert 401 in reports.answered
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
            wait_for_reports(page, reports)
            assert set(reports.answered) == {204}
            page.evaluate(HIDE)  # stops the script's timer at once (a tick under way still lands)
            wait_for_reports(page, reports)
            sent = reports.sent
            page.wait_for_timeout((ABSENT_AFTER + 1) * 1000)  # more than absent_after, hidden all along
            assert reports.sent == sent  # the beacon stopped
            assert not signed_in(page)  # the server noticed the silence at the next request
            cookies = {c["name"]: c["value"] for c in page.context.cookies()}
            assert "fw_session" not in cookies and cookies.get("fw_reconfirm") == "1"
        finally:
            browser.close()
