"""``fw COMMAND --help`` and ``-h``: the command's usage, exit 0, and nothing else, anywhere.

Nothing else means: no file written (no ``fw.sqlite3``, no generated code), no configuration read
and no application imported. The project below would show each: its app module raises when
imported, its configuration file references an undefined variable, and its generated code is
missing, so a command that ran instead of answering would fail or write files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fw.cli import COMMANDS, main

WORDS = ("--help", "-h")


def files(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``root``: its modification time and content, by relative path."""
    return {
        str(path.relative_to(root)): (path.stat().st_mtime_ns, path.read_bytes())
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "shop"\nversion = "0.1.0"\n\n[tool.fw]\napp = "shop.app:app"\n'
        'migrations = "migrations"\n\n[tool.fw.generate]\nhandlers = ["shop"]\nconfig = ["shop"]\n'
    )
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "app.py").write_text('raise RuntimeError("the app was imported")\n')
    (root / "migrations").mkdir()
    (root / "config.dev.toml").write_text('[server]\nhost = "${FW_HELP_TEST_UNDEFINED}"\n')
    return root


def first_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out.splitlines()[0]


# Outside any project.
# subprocess.run spelled out below: its keyword arguments are all it shares with other tests' runs.
@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_help_prints_the_usage_and_exits_0_in_an_empty_directory(
    command: str,
    word: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([command, word]) == 0
    line = first_line(capsys)
    assert line.startswith("usage: fw ") and f" {command}" in line
    assert list(tmp_path.iterdir()) == []


def test_help_answers_from_a_real_process_with_exit_status_0(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fw.cli", "migrate", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: fw [--project DIR] migrate")
    assert list(tmp_path.iterdir()) == []


# Inside a project.
# Parametrised like the test above over the same words and commands; the place and the checks differ.
@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_help_inside_a_project_imports_reads_and_writes_nothing(
    command: str,
    word: str,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(project)
    before = files(project)
    assert main([command, word]) == 0
    assert first_line(capsys).startswith("usage: fw ")
    assert files(project) == before
    assert not (project / "fw.sqlite3").exists()


@pytest.mark.parametrize(
    "arguments",
    [
        ["migrate", "new", "--help"],
        ["run", "--server-port", "9000", "-h"],
        ["init", "elsewhere", "--auth", "oidc_only", "--help"],
        ["completion", "bash", "--help"],
    ],
)
def test_help_after_other_arguments_still_only_prints_the_usage(
    arguments: list[str], project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project)
    before = files(project)
    assert main(["--project", str(project), *arguments]) == 0
    assert first_line(capsys).startswith("usage: fw ")
    assert files(project) == before


# What the usage says.
@pytest.mark.parametrize("command", ["run", "dev", "doctor", "migrate", "routes"])
def test_commands_that_take_configuration_options_say_so_and_how_to_list_them(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "every key of the application's configuration is an option here" in out
    assert f"fw {command} -- --help" in out


def test_init_lists_its_own_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "-h"]) == 0
    out = capsys.readouterr().out
    assert "--preset" in out and "--auth MODE" in out and "--db DATABASE" in out


# The application's configuration options, after "--".
# subprocess.run spelled out: its keyword arguments are all it shares with other tests' runs.
def fw(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    ours = ("AUTH_", "SESSION_", "SERVER_", "APP_")
    clean = {name: value for name, value in os.environ.items() if not name.startswith(ours)}
    return subprocess.run(
        [sys.executable, "-m", "fw.cli", *arguments],
        cwd=project,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def runnable(project: Path) -> Path:
    (project / "shop" / "app.py").write_text("import fw\n\napp = fw.App()\n")
    return project


@pytest.mark.parametrize("command", ["run", "dev", "doctor", "migrate", "routes"])
def test_help_after_a_double_dash_lists_the_configuration_options_and_does_nothing_else(
    command: str, runnable: Path
) -> None:
    before = files(runnable)
    done = fw(runnable, command, "--", "--help")
    assert done.returncode == 0, done.stderr
    assert "--server-port INT" in done.stdout and "env SERVER_PORT" in done.stdout
    assert {path: file for path, file in files(runnable).items() if "__pycache__" not in path} == before
    assert not (runnable / "fw.sqlite3").exists()


def test_a_configuration_template_asked_of_migrate_migrates_nothing(runnable: Path) -> None:
    done = fw(runnable, "migrate", "--generate-config", "toml")
    assert done.returncode == 0, done.stderr
    assert "[server]" in done.stdout
    assert not (runnable / "fw.sqlite3").exists()


# Wrong use.
def test_generate_refuses_an_argument_instead_of_generating(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(project)
    assert main(["--project", str(project), "generate", "-help"]) == 2
    assert "fw: generate takes no arguments, got '-help' (fw generate --help)" in capsys.readouterr().err
    assert files(project) == before
