"""A user's test run with :mod:`fw.testing`: no deprecation warning from fw or from the clients it hands out.

The user's test runs in a fresh interpreter, outside this project's pytest configuration, with
deprecations turned into errors, exactly as a strict user would run it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

USER_TEST = """
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from fw.testing import BrowserClient, identity_provider


async def home(request):
    return PlainTextResponse("hello")


app = Starlette(routes=[Route("/", home)])


def test_a_starlette_test_client():
    with TestClient(app) as client:
        assert client.get("/").text == "hello"


def test_the_browser_client_beside_the_development_provider():
    with identity_provider() as idp, BrowserClient(app, idp) as client:
        assert client.get("/").text == "hello"
        assert client.get(f"{idp.issuer}/.well-known/openid-configuration").json()["issuer"] == idp.issuer
"""


def test_a_user_test_using_fw_testing_and_a_starlette_test_client_emits_no_deprecation_warning(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_user.py").write_text(USER_TEST)
    strict = ["-W", "error::DeprecationWarning"]
    # Starlette's own deprecation category is a UserWarning; it is what TestClient raises for httpx.
    starlette = ["-W", "error::starlette.exceptions.StarletteDeprecationWarning"]
    # pytest-asyncio (a test dependency of fw, not of this user) warns about its own settings.
    plugins = ["-p", "no:cacheprovider", "-p", "no:asyncio"]
    result = subprocess.run(
        [sys.executable, *strict, "-m", "pytest", "-q", *plugins, *strict, *starlette],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    assert "warning" not in result.stdout.lower(), result.stdout
