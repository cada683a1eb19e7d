"""A real browser (headless Chromium via Playwright) through examples/login under ``fw dev``:
sign in with the development provider's user picker, see the protected page, sign out."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.support import CHROMIUM, CHROMIUM_ARGS, PYTHON, REPO, clean_env, free_port, serving


@pytest.fixture
def example(tmp_path: Path) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (bash .ci/run installs the Debian chromium package)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    workdir = tmp_path / "login"
    shutil.copytree(
        REPO / "examples" / "login", workdir, ignore=shutil.ignore_patterns("*.sqlite3", "__pycache__")
    )
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = clean_env({"APP_ENV": "dev"})
    command = [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(port)]
    with serving(command, env=env, cwd=workdir, ready_url=f"{origin}/", log=tmp_path / "fw-dev.log"):
        yield origin


def test_a_person_signs_in_sees_the_protected_page_and_signs_out(example: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(f"{example}/")
            assert "not signed in" in page.inner_text("#status")

            page.goto(f"{example}/account")  # protected: through the provider's picker and back
            assert "Choose a user" in page.inner_text("h1")
            page.click("text=Alice Example")
            page.wait_for_url(f"{example}/account")
            assert page.inner_text("#name") == "Alice Example"
            assert page.inner_text("#email") == "alice@example.test"
            cookie = next(c for c in page.context.cookies() if c["name"] == "fw_session")
            assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and len(cookie["value"]) == 43

            page.click("#logout")
            page.wait_for_url(f"{example}/")
            assert "not signed in" in page.inner_text("#status")
            assert not any(c["name"] == "fw_session" for c in page.context.cookies())

            page.goto(
                f"{example}/account"
            )  # reconfirm: the provider asks again instead of answering silently
            assert "Choose a user" in page.inner_text("h1")
            assert "prompt=login" in page.url
        finally:
            browser.close()


def test_deleting_the_account_asks_the_person_to_prove_it_again_then_once(example: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(f"{example}/settings")  # protected: sign in first
            page.click("text=Alice Example")
            page.wait_for_url(f"{example}/settings")  # the sign-in itself satisfies max_age(5 min)

            page.click("#delete")  # confirmed(0): a re-proof asked for this very attempt
            assert "Choose a user" in page.inner_text("h1")
            assert "prompt=login" in page.url and "max_age=0" in page.url
            page.click("text=Alice Example")
            page.wait_for_url(f"{example}/settings")  # the POST is not replayed: back on its page

            page.click("#delete")
            page.wait_for_selector("#deleted")
            assert "closed" in page.inner_text("#deleted")
            page.goto(f"{example}/account")  # the closed account's session has ended
            assert "Choose a user" in page.inner_text("h1")
        finally:
            browser.close()
