"""``fw dev`` on examples/login: migrations applied, the development provider started and injected."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from e2e.support import PYTHON, REPO, clean_env, free_port, fw_dev_example, sign_in_as_bob


@pytest.fixture
def dev_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    with fw_dev_example("login", tmp_path) as served:
        yield served


def test_fw_dev_serves_the_login_example_with_the_development_provider(dev_server: tuple[str, Path]) -> None:
    origin, log = dev_server
    output = log.read_text()
    assert "development identity provider at http://127.0.0.1:" in output
    assert "applied fw_0002" in output
    with httpx2.Client(follow_redirects=True) as browser:
        sign_in_as_bob(browser, origin)
        signed_out = browser.post(f"{origin}/auth/logout", headers={"Origin": origin})
        assert "not signed in" in signed_out.text


def test_fw_dev_refuses_to_start_the_provider_outside_app_env_dev(tmp_path: Path) -> None:
    import subprocess

    workdir = tmp_path / "login"
    shutil.copytree(
        REPO / "examples" / "login", workdir, ignore=shutil.ignore_patterns("*.sqlite3", "__pycache__")
    )
    result = subprocess.run(
        [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(free_port())],
        env=clean_env({"APP_ENV": "prod"}),
        cwd=workdir,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert b"APP_ENV" in result.stderr
    assert b"Traceback" not in result.stderr
