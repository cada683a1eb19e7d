"""A Redis password never leaves a real process: not in ``fw doctor``, not in ``fw run``'s refusal,
not in the log records uvicorn writes when the App refuses to start.

The project keeps its sessions in Redis at ``redis://default:PASSWORD@127.0.0.1:PORT/14``, on a
loopback port nothing listens on, with a password made fresh for each test; every line each
process prints is searched for it. Each run is the real command in a process of its own.
"""

from __future__ import annotations

import secrets
import subprocess
from pathlib import Path

import pytest

from e2e.support import PYTHON, clean_env, free_port

SHOP = "import fw\n\napp = fw.App()\n"


@pytest.fixture
def password() -> str:
    return f"redis-pw-{secrets.token_hex(8)}"


@pytest.fixture
def redis_port() -> int:
    """A loopback port nothing listens on."""
    return free_port()


@pytest.fixture
def project(tmp_path: Path, sqlite_dsn: str, password: str, redis_port: int) -> Path:
    """``oidc_only`` with Redis sessions; the Redis URL, password included, written in the file."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\n')
    (tmp_path / "shop.py").write_text(SHOP)
    (tmp_path / "config.dev.toml").write_text(
        "[session]\n"
        "enabled = true\n"
        'backend = "redis"\n'
        f'redis_url = "redis://default:{password}@127.0.0.1:{redis_port}/14"\n'
        "[middleware.rdb]\n"
        f'dsn = "{sqlite_dsn}"\n'
    )
    return tmp_path


def run(project: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(
        {
            "APP_ENV": "dev",
            "AUTH_ENABLED": "true",
            "AUTH_MODE": "oidc_only",
            "AUTH_OIDC_ISSUER": f"http://127.0.0.1:{free_port()}",
            "AUTH_OIDC_CLIENT_ID": "shop",
            "AUTH_OIDC_CLIENT_SECRET": "shop-client-secret",
            "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true",
        }
    )
    return subprocess.run(
        [PYTHON, *command], cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def masked_url(port: int) -> str:
    return f"redis://*****@127.0.0.1:{port}/14"


def test_fw_doctor_flags_the_written_password_and_names_unreachable_redis_without_it(
    project: Path, password: str, redis_port: int
) -> None:
    result = run(project, "-m", "fw.cli", "doctor")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    [written] = [line for line in lines if line.startswith("warning: session.redis_url")]
    assert written.startswith(f"warning: session.redis_url = {masked_url(redis_port)} is written in ")
    assert "config.dev.toml:4" in written and "${NAME}" in written
    [error] = [line for line in lines if line.startswith("error: session.redis_url")]
    assert error.startswith(f"error: session.redis_url = '{masked_url(redis_port)}': Redis cannot be reached")
    assert password not in result.stdout + result.stderr


def test_fw_run_refuses_to_start_naming_the_masked_url(project: Path, password: str, redis_port: int) -> None:
    result = run(project, "-m", "fw.cli", "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"fw: session.redis_url = '{masked_url(redis_port)}': Redis cannot be reached" in result.stderr
    assert password not in result.stdout + result.stderr


def test_the_log_records_of_a_server_whose_app_refuses_to_start_carry_no_password(
    project: Path, password: str, redis_port: int
) -> None:
    result = run(project, "-m", "uvicorn", "shop:app", "--host", "127.0.0.1", "--port", str(free_port()))
    assert result.returncode != 0, result.stdout + result.stderr
    logged = result.stdout + result.stderr
    assert f"fw: session.redis_url = '{masked_url(redis_port)}': Redis cannot be reached" in logged
    assert "Application startup failed" in logged
    assert password not in logged
