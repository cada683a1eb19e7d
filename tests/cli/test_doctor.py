"""``fw doctor`` on a project: the configuration advisories, what it checked, and its verdict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\n')
    (tmp_path / "shop.py").write_text("import fw\n\napp = fw.App()\n")
    return tmp_path


def doctor(project: Path, **env: str) -> subprocess.CompletedProcess[str]:
    ours = ("AUTH_", "SESSION_", "SERVER_", "MIDDLEWARE_", "APP_ENV")
    clean = {name: value for name, value in os.environ.items() if not name.startswith(ours)}
    return subprocess.run(
        [sys.executable, "-m", "fw.cli", "doctor"],
        cwd=project,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_misspelt_key_is_a_warning_and_the_verdict_counts_it(project: Path) -> None:
    (project / "config.dev.toml").write_text("[server]\nport = 8001\nprot = 8000\n")
    done = doctor(project)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    path = project / "config.dev.toml"
    assert lines[0] == f"warning: unknown key server.prot ({path}:3); did you mean server.port?"
    assert lines[-1] == "doctor: no errors; 1 warning above"


def test_production_without_a_configuration_file_is_a_warning(project: Path) -> None:
    done = doctor(project, APP_ENV="prod")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(
        "warning: APP_ENV=prod but no configuration file was found (searched config.prod.toml, "
        "config/config.prod.toml, "
    )
    assert done.stdout.rstrip().endswith("doctor: no errors; 1 warning above")


def test_doctor_says_what_it_checked_before_finding_no_problem(project: Path) -> None:
    (project / "config.dev.toml").write_text("[server]\nport = 8001\n")
    done = doctor(project)
    assert done.returncode == 0, done.stdout + done.stderr
    checked = [line for line in done.stdout.splitlines() if line.startswith("checked: ")]
    assert [line.split(":")[1].strip().split(" ")[0] for line in checked] == [
        "configuration",
        "generated",
        "startup",
    ]
    assert f"file {project / 'config.dev.toml'} setting 1" in checked[0]
    assert checked[2] == (
        "checked: startup: the server settings, /docs and the startup rules of 1 pillar turned on, "
        "as fw run checks them before serving"  # health and readiness, on by default
    )
    assert done.stdout.splitlines()[-1] == "doctor: no problems found"
