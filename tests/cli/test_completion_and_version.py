"""``fw completion SHELL`` prints a script each shell accepts and that completes fw's words;
``fw --version`` names the installed fw."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
from pathlib import Path

import pytest

from fw.cli import COMMANDS, main
from fw.cli.completion import SHELLS


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def complete_in_bash(script_file: Path, words: list[str]) -> list[str]:
    """What bash's completion function offers for the command line ``words`` (last one being typed)."""
    quoted = " ".join(f"'{word}'" for word in words)
    program = (
        f"source {script_file}\nCOMP_WORDS=({quoted})\nCOMP_CWORD={len(words) - 1}\n"
        "_fw\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30, check=True)
    return [line for line in done.stdout.splitlines() if line]


@pytest.fixture
def bash_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "fw.bash"
    path.write_text(script("bash", capsys))
    return path


# Syntax.
def test_the_bash_script_passes_bash_n(bash_script: Path) -> None:
    done = subprocess.run(["bash", "-n", str(bash_script)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("shell", "check"), [("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])])
def test_the_zsh_and_fish_scripts_pass_their_shells_syntax_check(
    shell: str, check: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which(check[0]) is None:
        pytest.skip(f"{check[0]} is not installed")
    path = tmp_path / f"fw.{shell}"
    path.write_text(script(shell, capsys))
    done = subprocess.run([*check, str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


# What bash completes.
def test_the_first_word_completes_to_every_sub_command_and_global_option(bash_script: Path) -> None:
    offered = complete_in_bash(bash_script, ["fw", ""])
    assert set(offered) == {*COMMANDS, "--project", "--version", "--help"}
    assert complete_in_bash(bash_script, ["fw", "ro"]) == ["routes"]


def test_completion_and_migrate_complete_their_argument(bash_script: Path) -> None:
    assert complete_in_bash(bash_script, ["fw", "completion", ""]) == list(SHELLS)
    assert complete_in_bash(bash_script, ["fw", "--project", "app", "migrate", "n"]) == ["new"]
    assert complete_in_bash(bash_script, ["fw", "completion", "bash", ""]) == []


def test_project_completes_directories_only(bash_script: Path, tmp_path: Path) -> None:
    (tmp_path / "service").mkdir()
    (tmp_path / "notes.txt").write_text("")
    offered = complete_in_bash(bash_script, ["fw", "--project", f"{tmp_path}/"])
    assert f"{tmp_path}/service" in offered and f"{tmp_path}/notes.txt" not in offered


# What fish completes.
def test_fish_offers_the_sub_commands_with_descriptions_and_their_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")
    path = tmp_path / "fw.fish"
    path.write_text(script("fish", capsys))

    def offered(line: str) -> list[str]:
        program = f"source {path}; complete -C '{line}'"
        done = subprocess.run(["fish", "-c", program], capture_output=True, text=True, timeout=30, check=True)
        return done.stdout.splitlines()

    first = dict(entry.split("\t", 1) for entry in offered("fw "))
    assert first == {name: text for name, (_, text) in COMMANDS.items()}
    assert sorted(offered("fw completion ")) == sorted(SHELLS)
    assert offered("fw migrate ") == ["new"]


# Wrong use.
def test_an_unknown_shell_is_a_usage_error_naming_the_shells(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "tcsh"]) == 2
    assert "usage: fw completion {bash,zsh,fish}" in capsys.readouterr().err
    assert main(["completion"]) == 2


# Version.
def test_version_prints_the_installed_fw_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"fw {importlib.metadata.version('fw-web')}"
