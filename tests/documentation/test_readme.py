"""The README is what a newcomer reads first: its commands are the ones that work, its links lead
somewhere, and the figures it summarises are the ones the performance page records."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from documentation.samples import DOCS, REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
CI_RUN = (REPO / ".ci" / "run").read_text(encoding="utf-8")
TEST_COMMAND_MARK = "# The test command from README.md, exactly:"


def _command_lines() -> list[str]:
    """The README's indented one-line commands (a set-up step a person copies whole)."""
    return [line[4:] for line in README.splitlines() if line.startswith("    python3 -m venv")]


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else len(README)]


def test_the_readme_test_command_is_exactly_what_ci_runs() -> None:
    lines = CI_RUN.splitlines()
    ci_command = lines[lines.index(TEST_COMMAND_MARK) + 1]
    assert ci_command in _command_lines()


def test_the_readme_set_up_command_makes_the_project_outside_the_checkout() -> None:
    (set_up,) = [line for line in _command_lines() if " fw init " in line]
    words = shlex.split(set_up)
    target = Path(words[words.index("init") + 1])
    assert not target.is_absolute() and target.parts[0] == "..", set_up
    assert (REPO / target).resolve().parent == REPO.parent
    assert f"cd {target}" in set_up


def test_the_readme_stays_a_first_read() -> None:
    assert len(README.splitlines()) <= 250


def test_every_file_the_readme_links_to_exists() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [target for target in targets if "://" not in target]
    assert len(local) >= 20
    missing = [target for target in local if not (REPO / target).is_file()]
    assert not missing


def test_every_figure_of_the_readme_performance_summary_is_on_the_performance_page() -> None:
    page = (DOCS / "performance.md").read_text(encoding="utf-8")
    figures = re.findall(r"\d{1,3}(?:,\d{3})+|\d+\.\d+ (?:ms|µs)", _section("Performance"))
    assert len(figures) >= 20
    assert [figure for figure in figures if figure.split()[0] not in page] == []
