"""A real browser (headless Chromium) opens ``/docs`` with every other origin cut off: Swagger UI
loads from the application alone and renders the example's operations from ``/openapi.json``."""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import fw
from e2e.support import CHROMIUM, CHROMIUM_ARGS, REPO
from fw.background import BackgroundServer
from fw.testing import configured

if TYPE_CHECKING:
    from playwright.sync_api import Route


@contextlib.contextmanager
def served_example() -> Iterator[str]:
    """The example's binding routes on a fresh App under APP_ENV=dev, on a loopback port."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from examples.hello import members

    app = fw.App()
    members.register(app)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = BackgroundServer(app, sock, what="the docs example", name="docs-example")
    with configured(env={"APP_ENV": "dev"}):
        server.start()
        try:
            yield f"http://127.0.0.1:{sock.getsockname()[1]}"
        finally:
            server.stop()


def test_the_reference_loads_offline_from_the_app_and_lists_its_operations() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (bash .ci/run installs the Debian chromium package)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    from playwright.sync_api import sync_playwright

    with served_example() as origin, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            fetched: list[str] = []
            elsewhere: list[str] = []
            problems: list[str] = []

            def only_the_app(route: Route) -> None:
                url = route.request.url
                if url.startswith(f"{origin}/"):
                    fetched.append(url.removeprefix(origin))
                    route.continue_()
                else:
                    elsewhere.append(url)
                    route.abort()

            page.route("**/*", only_the_app)
            page.on(
                "console", lambda message: problems.append(message.text) if message.type == "error" else None
            )
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.goto(f"{origin}/docs")
            page.wait_for_selector("[data-path='/members/search']", timeout=15000)
            rendered = page.locator(".opblock-summary [data-path]")
            paths = {rendered.nth(i).get_attribute("data-path") for i in range(rendered.count())}
            assert paths == {
                "/orgs/{org}/members",
                "/members/{member}/avatar",
                "/orgs/{org}/orders",
                "/members/search",
            }
            assert "fw" in page.locator(".info .title").inner_text()
        finally:
            browser.close()
    assert elsewhere == []
    assert "/openapi.json" in fetched
    assert any(url.endswith("/swagger-ui-bundle.js") and url.startswith("/docs/assets/") for url in fetched)
    assert problems == []
