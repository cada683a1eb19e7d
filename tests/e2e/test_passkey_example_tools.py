"""``fw dev``, ``fw doctor`` and the admin command on examples/passkeys, in both passkey modes.

``fw dev`` starts the development identity provider for ``oidc_passkey`` (it signs in there) and
stops it again for ``passkey_only`` (nothing OIDC is injected); ``fw doctor`` reports each mode's
startup errors as one ``error:`` line, as for the other modes.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from e2e.support import PYTHON, REPO, clean_env, free_port, serving

PASSKEY_ONLY = ["--config-path", "config.passkey_only.toml"]
#: What fw dev would inject for oidc_passkey (the checks here fail before anything is fetched).
OIDC = {
    "AUTH_OIDC_ISSUER": "http://127.0.0.1:9",
    "AUTH_OIDC_CLIENT_ID": "fw-dev-app",
    "AUTH_OIDC_CLIENT_SECRET": "s3cret",
}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    target = tmp_path / "passkeys"
    shutil.copytree(
        REPO / "examples" / "passkeys", target, ignore=shutil.ignore_patterns("*.sqlite3", "__pycache__")
    )
    return target


def _fw(workdir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "fw.cli", *args],
        cwd=workdir,
        env=clean_env({"APP_ENV": "dev", **env}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def dev_log(request: pytest.FixtureRequest, workdir: Path, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """``fw dev`` serving the example with the configuration arguments of the test's parameter."""
    config: list[str] = request.param
    port = free_port()
    command = [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(port), *config]
    log = tmp_path / "fw-dev.log"
    origin = f"http://127.0.0.1:{port}"
    with serving(command, env=clean_env({"APP_ENV": "dev"}), cwd=workdir, ready_url=f"{origin}/", log=log):
        yield origin, log.read_text()


@pytest.mark.parametrize("dev_log", [[]], indirect=True)
def test_fw_dev_serves_oidc_passkey_with_the_development_provider(dev_log: tuple[str, str]) -> None:
    origin, log = dev_log
    assert "development identity provider at http://127.0.0.1:" in log
    home = httpx2.get(f"{origin}/")
    assert "id='oidc-login'" in home.text and "id='passkey-login'" in home.text
    script = httpx2.get(f"{origin}/auth/passkey/passkey.js")
    assert script.status_code == 200 and "window.fwPasskey" in script.text


@pytest.mark.parametrize("dev_log", [PASSKEY_ONLY], indirect=True)
def test_fw_dev_serves_passkey_only_without_the_provider(dev_log: tuple[str, str]) -> None:
    origin, log = dev_log
    assert "auth.mode = passkey_only does not sign in at the development identity provider" in log
    assert "development identity provider at" not in log
    home = httpx2.get(f"{origin}/")
    assert "id='enroll'" in home.text and "id='oidc-login'" not in home.text


def _migrated(workdir: Path, *config: str) -> None:
    migrated = _fw(workdir, "migrate", *config)
    assert migrated.returncode == 0, migrated.stderr


def test_fw_doctor_finds_no_problem_in_the_passkey_only_example(workdir: Path) -> None:
    _migrated(workdir, *PASSKEY_ONLY)
    result = _fw(workdir, "doctor", *PASSKEY_ONLY)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("doctor: no problems found")


@pytest.mark.parametrize(
    ("config", "env", "key"),
    [
        # passkey_only reads no [auth.oidc]: an issuer set for it is a foreign setting.
        (PASSKEY_ONLY, {"AUTH_OIDC_ISSUER": "http://127.0.0.1:9"}, "auth.oidc"),
        (PASSKEY_ONLY, {"AUTH_PASSKEY_RP_ID": "127.0.0.1"}, "auth.passkey.rp_id"),
        (PASSKEY_ONLY, {"AUTH_RECOVERY_POLICY": "oidc"}, "auth.recovery.policy"),
        (PASSKEY_ONLY, {"AUTH_REGISTRATION_POLICY": ""}, "auth.registration.policy"),
        ([], {**OIDC, "AUTH_RECOVERY_POLICY": ""}, "auth.recovery.policy"),
        ([], {**OIDC, "AUTH_PASSKEY_ORIGINS": "http://example.com"}, "auth.passkey.origins"),
    ],
)
def test_fw_doctor_reports_a_passkey_startup_error_as_one_error_line(
    workdir: Path, config: list[str], env: dict[str, str], key: str
) -> None:
    _migrated(workdir, *config)
    result = _fw(workdir, "doctor", *config, **env)
    assert result.returncode == 1, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stdout
    assert key in errors[0]
    assert "Traceback" not in result.stderr


def _admin(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "admin.py", "issue", *args],
        cwd=workdir,
        env=clean_env({"APP_ENV": "dev"}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _printed_credential(result: subprocess.CompletedProcess[str], login_id: str) -> None:
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"login ID: {login_id}"
    assert lines[1].startswith("secret: ") and lines[2].startswith("expires: ")
    assert len(lines[1].removeprefix("secret: ")) >= 16


def _refused(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1
    assert result.stderr.startswith("admin.py: ") and "Traceback" not in result.stderr
    return result.stderr


def test_the_admin_command_prints_a_credential_once_and_refuses_outside_passkey_only(workdir: Path) -> None:
    _migrated(workdir, *PASSKEY_ONLY)
    _printed_credential(_admin(workdir, "ada", *PASSKEY_ONLY), "ada")
    assert "passkey_only" in _refused(_admin(workdir, "ada"))  # config.dev.toml: oidc_passkey


def test_the_admin_command_issues_recovery_only_for_an_existing_login_id(workdir: Path) -> None:
    _migrated(workdir, *PASSKEY_ONLY)
    _printed_credential(_admin(workdir, "ada", *PASSKEY_ONLY), "ada")
    _printed_credential(_admin(workdir, "ada", "--recovery", *PASSKEY_ONLY), "ada")
    assert "'nobody'" in _refused(_admin(workdir, "nobody", "--recovery", *PASSKEY_ONLY))
