"""``fw routes``: the route table of a project, with protection and bound request types."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fw.cli.routetable import ProtectionRules

APP = """
from dataclasses import dataclass
from typing import Annotated

import fw

app = fw.App()


@dataclass
class Search:
    q: Annotated[str, fw.query("q")]


@app.route("GET /{$}")
async def home(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({})


@app.route("GET /api/items")
async def search(request: fw.Request) -> fw.Response:
    found = await fw.parse(Search, request)
    return fw.JSONResponse({"q": found.q})


@app.route("GET /api/health")
async def health(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({"ok": True})


@app.route("/api/files/{path...}")
async def files(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({})
"""

CONFIG = """
[session]
enabled = true

[auth]
enabled = true
mode = "oauth_only"
protection.include = ["/api/"]
protection.exclude = ["/api/health"]

[auth.oauth]
provider = "x"
allow_loopback_http = true
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "shop"\nversion = "1.2.0"\n\n'
        '[tool.fw]\napp = "shop.app:app"\n\n[tool.fw.generate]\nhandlers = ["shop"]\n'
    )
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "app.py").write_text(APP)
    (tmp_path / "config.dev.toml").write_text(CONFIG)
    return tmp_path


def fw_routes(project: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("AUTH_", "SESSION_", "SERVER_", "APP_ENV"))
    }
    return subprocess.run(
        [sys.executable, "-m", "fw.cli", "routes"],
        cwd=project,
        env={**clean, "APP_ENV": "dev", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def table(output: str) -> dict[str, list[str]]:
    """Row cells by path (columns are separated by two or more spaces)."""
    rows = [re.split(r" {2,}", line.strip()) for line in output.splitlines()]
    assert rows[0] == ["METHODS", "PATH", "PROTECTION", "BINDS", "HANDLER"]
    return {row[1]: row for row in rows[1:]}


# The table.
def test_each_route_shows_its_methods_protection_bound_type_and_handler(project: Path) -> None:
    done = fw_routes(project, AUTH_OAUTH_CLIENT_ID="id", AUTH_OAUTH_CLIENT_SECRET="secret")
    assert done.returncode == 0, done.stderr
    rows = table(done.stdout)
    assert rows["/api/items"] == ["GET", "/api/items", "auth (include /api/)", "Search", "shop.app:search"]
    assert rows["/api/health"] == ["GET", "/api/health", "public (exclude /api/health)", "shop.app:health"]
    assert rows["/api/files/{path...}"][:3] == ["ANY", "/api/files/{path...}", "auth (include /api/)"]
    assert rows["/{$}"][:3] == ["GET", "/{$}", "public"]


def test_the_sign_in_endpoints_and_the_documents_fw_serves_are_listed(project: Path) -> None:
    rows = table(fw_routes(project, AUTH_OAUTH_CLIENT_ID="id", AUTH_OAUTH_CLIENT_SECRET="s").stdout)
    assert rows["/auth/login"][:3] == ["GET", "/auth/login", "exempt (sign-in endpoint)"]
    assert rows["/auth/logout"][:3] == ["POST", "/auth/logout", "exempt (sign-in endpoint)"]
    assert rows["/openapi.json"][2] == "public" and rows["/docs"][2] == "public"


def test_an_app_that_would_not_start_is_named_before_the_table(project: Path) -> None:
    # A login path that is not root-relative: the App refuses to start.
    done = fw_routes(
        project, AUTH_OAUTH_CLIENT_ID="id", AUTH_OAUTH_CLIENT_SECRET="s", AUTH_LOGIN_PATH="auth/login"
    )
    assert done.returncode == 0
    assert "would not start (auth.login_path = 'auth/login'" in done.stderr
    assert "/auth/login" not in table(done.stdout)


def test_the_provider_variables_fw_dev_sets_are_named_and_the_table_is_complete(project: Path) -> None:
    done = fw_routes(project)  # no client id or secret: fw dev sets them
    assert done.returncode == 0
    assert done.stderr == (
        "fw: AUTH_OAUTH_CLIENT_ID and AUTH_OAUTH_CLIENT_SECRET are not set: fw dev sets them; "
        "elsewhere set them in the environment or .env\n"
    )
    assert "/auth/login" in table(done.stdout)


def test_a_project_without_tool_fw_app_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.fw]\n")
    done = fw_routes(tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("fw: [tool.fw] app must name the App")
    assert "Traceback" not in done.stderr


# Protection rules.
@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/private/{rest...}", "auth (include /private/)"),
        ("/private/{id}", "auth (include /private/)"),
        ("/private/open", "public (exclude /private/open)"),
        ("/users/{id}/avatar", "auth (include /users/*/avatar)"),
        ("/", "public"),
    ],
)
def test_a_route_pattern_is_judged_by_the_first_rule_covering_it(path: str, shown: str) -> None:
    rules = ProtectionRules(True, ("/private/", "/users/*/avatar"), ("/private/open",))
    assert rules.describe(path) == shown


def test_with_auth_off_every_route_is_public() -> None:
    assert ProtectionRules(False, ("/",)).describe("/anything") == "public (auth off)"
