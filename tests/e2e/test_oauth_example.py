"""A real browser (headless Chromium via Playwright) through examples/oauth under ``fw dev``:
sign in with X at the X-shaped stand-in's user picker, see the profile page, sign out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.support import CHROMIUM, CHROMIUM_ARGS, fw_dev_example


@pytest.fixture
def example(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (bash .ci/run installs the Debian chromium package)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with fw_dev_example("oauth", tmp_path) as served:
        yield served


# Each example's browser test opens its own browser and page, as test_browser_login.py does: each reads whole.
def test_a_person_signs_in_with_x_sees_their_profile_and_signs_out(example: tuple[str, Path]) -> None:
    from playwright.sync_api import sync_playwright

    origin, log = example
    assert "development identity provider at http://127.0.0.1:" in log.read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(f"{origin}/")
            assert "not signed in" in page.inner_text("#status")

            page.click("#login")  # through the stand-in's picker: PKCE, state, Basic auth, lookup
            assert page.inner_text("h1") == "Authorize app"
            assert "/i/oauth2/authorize" in page.url and "code_challenge_method=S256" in page.url
            page.click("text=Alice Example")
            page.wait_for_url(f"{origin}/")
            assert page.inner_text("#status") == "Signed in as @alice."

            page.goto(f"{origin}/account")
            assert page.inner_text("#name") == "Alice Example"
            assert page.inner_text("#username") == "@alice"
            assert page.inner_text("#provider") == "x"
            page.wait_for_function("document.getElementById('avatar').naturalWidth > 0")
            cookie = next(c for c in page.context.cookies() if c["name"] == "fw_session")
            assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"

            page.click("#logout")
            page.wait_for_url(f"{origin}/")
            assert "not signed in" in page.inner_text("#status")
            assert not any(c["name"] == "fw_session" for c in page.context.cookies())

            page.goto(f"{origin}/account")  # protected again: back at the picker
            assert page.inner_text("h1") == "Authorize app"
        finally:
            browser.close()


def test_a_person_who_cancels_at_x_is_not_signed_in(example: tuple[str, Path]) -> None:
    from playwright.sync_api import sync_playwright

    origin, _ = example
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(f"{origin}/account")
            with page.expect_response(lambda r: "/auth/callback" in r.url) as callback:
                page.click("text=Cancel")
            assert 400 <= callback.value.status < 500
            assert not any(c["name"] == "fw_session" for c in page.context.cookies())
            page.goto(f"{origin}/")
            assert "not signed in" in page.inner_text("#status")
        finally:
            browser.close()
