"""How the newcomer tests read commands out of a README, and how their terminal carries a folder
and an environment from one command to the next, as a shell a person keeps open does."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from newcomer.readme import Command, code_lines, fenced_commands, is_command, segments
from newcomer.terminal import CommandFailed, Terminal, clean_environment
from newcomer.walkthrough import as_release, fw_setup_line

pytestmark = pytest.mark.newcomer

README = """\
# shop

    python3 -m venv .venv && pip install -e .

## Run it

```sh
# install with the test tools
pip install -e '.[test]'
fw dev
```

```python
print("not a command")
```

```console
$ fw token --sub alice \\
    --scope orders:read
eyJhbGciOi...
```

## Deploying

```bash
APP_ENV=prod fw migrate
```
"""


def test_commands_come_from_shell_blocks_in_order_with_their_section() -> None:
    assert fenced_commands(README) == [
        Command("pip install -e '.[test]'", "Run it"),
        Command("fw dev", "Run it"),
        Command("fw token --sub alice --scope orders:read", "Run it"),
        Command("APP_ENV=prod fw migrate", "Deploying"),
    ]


def test_in_a_block_without_prompts_every_line_is_a_command() -> None:
    readme = "## Test\n\n```console\n.venv/bin/pytest\n.venv/bin/ruff check .\n```\n"
    typed = [command.text for command in fenced_commands(readme)]
    assert typed == [".venv/bin/pytest", ".venv/bin/ruff check ."]


def test_indented_code_lines_count_as_commands_too() -> None:
    assert code_lines(README)[0] == "python3 -m venv .venv && pip install -e ."


def test_a_line_splits_into_its_steps_and_a_step_is_recognised_with_options() -> None:
    assert segments("fw init ../shop && cd ../shop && fw dev") == ["fw init ../shop", "cd ../shop", "fw dev"]
    assert is_command("fw dev --no-reload", "fw", "dev")
    assert not is_command("fw devices", "fw", "dev")
    assert is_command("../.venv/bin/fw init ../shop", "fw", "init")
    assert not is_command("TOKEN=$(.venv/bin/fw token)", "fw", "token")


def test_the_terminal_keeps_the_folder_and_the_variables_a_command_leaves(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    terminal = Terminal(tmp_path, clean_environment(tmp_path / "dist"))
    terminal.check("cd shop && export GREETING=hi")
    assert terminal.cwd == tmp_path / "shop"
    assert terminal.check('echo "$GREETING from $(basename "$PWD")"') == "hi from shop\n"
    assert str(tmp_path / "dist") in terminal.env["PIP_FIND_LINKS"].split()


def test_the_terminal_names_a_failing_command_and_what_was_typed_before(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path, clean_environment(tmp_path))
    terminal.check("true")
    with pytest.raises(CommandFailed, match=r"(?s)`ls missing` .*exited with 2.*\$ true"):
        terminal.check("ls missing")


def test_the_terminal_starts_without_the_suites_virtual_environment_or_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTH_OIDC_ISSUER", "http://127.0.0.1:1")
    monkeypatch.setenv("PYTHONPATH", "/somewhere/src")
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    suite_bin = str(Path(sys.prefix) / "bin")
    monkeypatch.setenv("PATH", os.pathsep.join([suite_bin, "/usr/bin"]))
    environment = clean_environment(tmp_path)
    assert "AUTH_OIDC_ISSUER" not in environment and "PYTHONPATH" not in environment
    assert "VIRTUAL_ENV" not in environment
    assert environment["PATH"].split(os.pathsep) == ["/usr/bin"]


def test_fws_readme_has_a_set_up_line_that_installs_fw_and_inits_a_project() -> None:
    steps = segments(fw_setup_line())
    assert any(is_command(step, "fw", "init") for step in steps)
    assert any(as_release(step).endswith("pip install fw-web") for step in steps)


def test_installing_fw_from_the_checkout_becomes_installing_the_release() -> None:
    assert as_release("pip install -e .") == "pip install fw-web"
    assert as_release(".venv/bin/pip install -q -e '.[test]'") == ".venv/bin/pip install -q fw-web"
    assert as_release("pip install fw-web") == "pip install fw-web"
    assert as_release("fw init ../shop") == "fw init ../shop"
