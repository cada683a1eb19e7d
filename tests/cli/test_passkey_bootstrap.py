"""``fw passkey bootstrap``: the first credential of a ``passkey_only`` project, from the command
line, in a project ``fw init --auth passkey_only`` wrote; and its refusals, one line each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from .generated import fw, generated

#: Run in the project (its package on the path, its config.dev.toml and database): open the
#: printed sign-in page, enter the login ID and secret as its script does, register a passkey with
#: a software authenticator, and report what the browser saw as one JSON line.
SIGN_IN = """
import json, sys
from urllib.parse import urlsplit
import fw
from starlette.testclient import TestClient
from fw.testing.passkeys import SoftAuthenticator
from pk.main import create_app

login_id, secret, url = sys.argv[1:4]
origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
fw.parse_config([])
seen = {}
with TestClient(create_app(), base_url=origin) as client:
    headers = {"Origin": origin}
    page = client.get(urlsplit(url).path)
    seen["page"] = [page.status_code, page.headers["content-type"].split(";")[0]]
    seen["anonymous"] = client.get("/account", follow_redirects=False).status_code
    body = {"login_id": login_id, "secret": secret}
    seen["bootstrap"] = client.post("/auth/passkey/bootstrap", json=body, headers=headers).json()
    options = client.post("/auth/passkey/register/begin", headers=headers).json()
    answer = SoftAuthenticator(origin).create(options)
    finished = client.post("/auth/passkey/register/finish", json=answer, headers=headers)
    seen["registered"] = finished.status_code
    seen["signed_in"] = client.get("/account", follow_redirects=False).status_code
    seen["again"] = client.post("/auth/passkey/bootstrap", json=body, headers=headers).status_code
print(json.dumps(seen))
"""

#: A management script that issues a credential without calling fw.parse_config itself.
SCRIPT = """
import asyncio
import fw
import pk.main
print(asyncio.run(fw.auth.issue_bootstrap_credential("carol")).login_id)
"""


def python(project: Path, script: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -c SCRIPT`` in the project, its package importable, none of the shell's fw variables."""
    clean = {name: value for name, value in os.environ.items() if not name.startswith(("AUTH_", "APP_ENV"))}
    return subprocess.run(
        [sys.executable, "-c", script, *arguments],
        cwd=project,
        env={**clean, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = generated(tmp_path_factory.mktemp("migrated"), "pk", "--auth", "passkey_only")
    migrated = fw(root, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    return root


@pytest.fixture
def unmigrated(tmp_path: Path) -> Path:
    return generated(tmp_path, "pk", "--auth", "passkey_only")


def printed(output: str) -> dict[str, str]:
    """The labelled lines fw passkey bootstrap prints (login ID, secret, expires, sign in)."""
    fields = {}
    for line in output.splitlines():
        label, colon, value = line.partition(":")
        if colon and label in ("login ID", "secret", "expires", "sign in"):
            fields[label] = value.strip()
    return fields


def refusal(done: subprocess.CompletedProcess[str], status: int = 1) -> str:
    """The one stderr line of a refused command (no output, no traceback)."""
    assert (done.returncode, done.stdout) == (status, ""), done.stderr
    [line] = done.stderr.splitlines()
    return line


# Issuing.
def test_the_printed_secret_enrols_a_passkey_that_then_signs_in(project: Path) -> None:
    done = fw(project, "passkey", "bootstrap", "alice")
    assert (done.returncode, done.stderr) == (0, "")
    issued = printed(done.stdout)
    assert issued["login ID"] == "alice" and len(issued["secret"]) >= 40
    expires = datetime.strptime(issued["expires"], "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC)
    assert timedelta(hours=71) < expires - datetime.now(UTC) <= timedelta(hours=72)
    assert issued["sign in"] == "http://localhost:8000/auth/login"  # the passkey origin, not 127.0.0.1
    browser = python(project, SIGN_IN, "alice", issued["secret"], issued["sign in"])
    assert browser.returncode == 0, browser.stderr
    seen: dict[str, Any] = json.loads(browser.stdout.splitlines()[-1])
    assert seen == {
        "page": [200, "text/html"],
        "anonymous": seen["anonymous"],
        "bootstrap": {"next": "/auth/passkey/register/begin"},
        "registered": 200,
        "signed_in": 200,
        "again": 403,  # spent by its registration
    }
    assert seen["anonymous"] in (302, 303)


def test_a_recovery_credential_is_issued_for_an_existing_login_id(project: Path) -> None:
    assert fw(project, "passkey", "bootstrap", "dora").returncode == 0
    done = fw(project, "passkey", "bootstrap", "dora", "--recovery")
    assert done.returncode == 0, done.stderr
    assert printed(done.stdout)["login ID"] == "dora"
    assert "registers a recovery passkey" in done.stdout


def test_a_management_script_issues_without_calling_parse_config(project: Path) -> None:
    done = python(project, SCRIPT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "carol\n", ""), done.stderr


# Refusals.
def test_without_framework_tables_it_says_to_run_fw_migrate(unmigrated: Path) -> None:
    assert refusal(fw(unmigrated, "passkey", "bootstrap", "alice")) == (
        "fw: middleware.rdb.dsn = 'sqlite:///pk.sqlite3': table fw_accounts, fw_bootstrap is missing; "
        "run `fw migrate` to apply the framework migrations"
    )


def test_a_management_script_before_migrate_gets_the_same_advice_not_a_sql_error(unmigrated: Path) -> None:
    done = python(unmigrated, SCRIPT)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "fw.errors.StartupError: middleware.rdb.dsn = 'sqlite:///pk.sqlite3': table fw_accounts, "
        "fw_bootstrap is missing; run `fw migrate` to apply the framework migrations"
    )


@pytest.mark.parametrize(
    ("options", "has"),
    [(("--auth", "oidc_only"), "auth.mode = oidc_only"), (("--auth", "none"), "auth.enabled = false")],
)
def test_another_mode_is_named_in_one_line(tmp_path: Path, options: tuple[str, ...], has: str) -> None:
    other = generated(tmp_path, "shop", *options)
    assert refusal(fw(other, "passkey", "bootstrap", "alice")) == (
        f"fw: bootstrap credentials exist only with auth.mode = passkey_only; this project has {has}"
    )


@pytest.mark.parametrize(
    ("arguments", "line"),
    [
        (
            ("bootstrap", "nobody", "--recovery"),
            "fw: no account has the login ID 'nobody'; issue its first passkey without --recovery",
        ),
        (
            ("bootstrap", "erin", "--account", "no-such-account"),
            "fw: no account has the ID 'no-such-account'",
        ),
        (("bootstrap", "x" * 257), "fw: a login ID is 1 to 256 printable characters"),
    ],
)
def test_what_cannot_be_issued_is_one_line(project: Path, arguments: tuple[str, ...], line: str) -> None:
    assert refusal(fw(project, "passkey", *arguments)) == line


@pytest.mark.parametrize(
    ("arguments", "start"),
    [
        ((), "fw: passkey takes the sub-command bootstrap, nothing (usage: fw passkey bootstrap LOGIN_ID"),
        (("enrol", "alice"), "fw: passkey takes the sub-command bootstrap, got 'enrol' (usage: "),
        (("bootstrap",), "fw: passkey bootstrap needs the login ID first (usage: "),
        (("bootstrap", "alice", "--account"), "fw: --account needs an account ID (usage: "),
    ],
)
def test_a_malformed_command_line_is_a_usage_line_with_status_2(
    project: Path, arguments: tuple[str, ...], start: str
) -> None:
    assert refusal(fw(project, "passkey", *arguments), 2).startswith(start)


def test_help_issues_nothing_and_opens_no_database(unmigrated: Path) -> None:
    before = sorted(path.relative_to(unmigrated) for path in unmigrated.rglob("*"))
    done = fw(unmigrated, "passkey", "bootstrap", "alice", "--help")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith(
        "usage: fw [--project DIR] passkey bootstrap LOGIN_ID [--recovery] [--account ID]"
    )
    assert "secret:" not in done.stdout
    assert sorted(path.relative_to(unmigrated) for path in unmigrated.rglob("*")) == before
