"""``fw dev``'s development provider on a port that stays, and ``fw token`` for the api preset.

Exactly what a new user types: ``fw init api --preset api``, ``fw dev``, ``fw token --sub alice``,
then a call to the protected route, each a real process. The browser modes keep one account per
development user across restarts for the same reason: the issuer URL does not change.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from e2e.support import PYTHON, REPO, clean_env, free_port, serving
from fw.devidp.stable import load_state

TIMEOUT = 120
ISSUER_LINE = re.compile(r"fw dev: development token issuer at (http://127\.0\.0\.1:\d+)")


# subprocess.run spelled out: its keyword arguments are all it shares with other tests' runs.
def fw(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "fw.cli", *arguments],
        cwd=root,
        env=clean_env({"APP_ENV": "dev"}),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    done = fw(tmp_path, "init", "api", "--preset", "api")
    assert done.returncode == 0, done.stderr
    return tmp_path / "api"


@contextlib.contextmanager
def fw_dev(root: Path, log: Path, ready: str = "/me") -> Iterator[str]:
    """``fw dev`` serving ``root`` on a free loopback port; its origin while it runs."""
    origin = f"http://127.0.0.1:{free_port()}"
    command = [PYTHON, "-m", "fw.cli", "dev", "--server-port", origin.rsplit(":", 1)[1]]
    with serving(command, env=clean_env({"APP_ENV": "dev"}), cwd=root, ready_url=f"{origin}{ready}", log=log):
        yield origin


def issuer_of(log: Path) -> str:
    found = ISSUER_LINE.search(log.read_text())
    assert found, log.read_text()
    return found.group(1)


def token(root: Path, *arguments: str) -> str:
    done = fw(root, "token", *arguments)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_fw_token_prints_a_token_the_dev_server_of_a_new_api_project_accepts(
    project: Path, tmp_path: Path
) -> None:
    with fw_dev(project, tmp_path / "dev.log") as origin:
        alice = token(project, "--sub", "alice", "--scope", "read")
        answer = httpx2.get(f"{origin}/me", headers={"Authorization": f"Bearer {alice}"}, timeout=10)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"account_id": "alice", "scopes": ["read"]}
        refused = httpx2.get(f"{origin}/me", timeout=10)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer")
    said = (tmp_path / "dev.log").read_text()
    assert "(fw token --sub alice prints an access token this server accepts)" in said
    assert issuer_of(tmp_path / "dev.log") == load_state(project).issuer


def test_restarting_fw_dev_keeps_the_issuer_url_and_the_tokens_it_signed(
    project: Path, tmp_path: Path
) -> None:
    with fw_dev(project, tmp_path / "first.log"):
        before = token(project, "--sub", "bob")
    with fw_dev(project, tmp_path / "second.log") as origin:
        answer = httpx2.get(f"{origin}/me", headers={"Authorization": f"Bearer {before}"}, timeout=10)
        assert answer.status_code == 200, answer.text
        assert answer.json()["account_id"] == "bob"
    assert issuer_of(tmp_path / "first.log") == issuer_of(tmp_path / "second.log")


def test_a_taken_issuer_port_gets_a_one_run_port_and_a_one_line_warning(
    project: Path, tmp_path: Path
) -> None:
    with fw_dev(project, tmp_path / "first.log"):
        pass
    recorded = load_state(project)
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", recorded.port))
        squatter.listen()
        with fw_dev(project, tmp_path / "second.log") as origin:
            answer = httpx2.get(f"{origin}/me", timeout=10)
            assert answer.status_code == 401
    said = (tmp_path / "second.log").read_text()
    [warning] = [line for line in said.splitlines() if "is taken" in line]
    assert warning.startswith(f"fw dev: port {recorded.port} of the development identity provider")
    assert "for this run only" in warning
    assert issuer_of(tmp_path / "second.log") != recorded.issuer
    assert "fw token --sub" not in said
    assert load_state(project).port == recorded.port  # the record keeps the project's own port


def sign_in(origin: str, user: str) -> None:
    """Sign in at ``origin`` through the development provider's user picker, as a browser does."""
    with httpx2.Client(follow_redirects=True, timeout=10) as browser:
        picker = browser.get(f"{origin}/account")
        action = re.search(r"<form method='post' action='([^']+)'>", picker.text)
        assert action, picker.text
        hidden = dict(re.findall(r"<input type='hidden' name='([^']+)' value='([^']*)'>", picker.text))
        account = browser.post(action.group(1), data={**hidden, "user": user})
        assert str(account.url) == f"{origin}/account", account.text


def test_a_development_user_keeps_one_account_across_fw_dev_restarts(tmp_path: Path) -> None:
    root = tmp_path / "login"
    shutil.copytree(
        REPO / "examples" / "login", root, ignore=shutil.ignore_patterns("*.sqlite3", "__pycache__")
    )
    with fw_dev(root, tmp_path / "first.log", ready="/") as origin:
        sign_in(origin, "bob")
    with fw_dev(root, tmp_path / "second.log", ready="/") as origin:
        sign_in(origin, "bob")
    with contextlib.closing(sqlite3.connect(root / "login-example.sqlite3")) as database:
        accounts = database.execute("SELECT issuer, claim_value FROM fw_accounts").fetchall()
    assert accounts == [(load_state(root).issuer, "bob")]
