"""What ``fw dev`` reloads for: the project's sources and configuration files, never the files
it writes itself, caches, virtual environments or hidden folders (:mod:`fw.cli.reload`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from watchfiles import Change

from fw.cli.reload import ProjectFilter, describe, watched_name

RELOADS = [
    "src/shop/models.py",
    "app.py",
    "config.dev.toml",
    "config.prod.toml",
    "config.toml",
    ".env",
    ".env.dev",
    "pyproject.toml",
    "migrations/versions/0001_notes.py",
]
IGNORED = [
    "src/shop/_fw_binders.py",
    "src/shop/_fw_config.py",
    "src/shop/openapi.json",
    "src/shop/__pycache__/models.cpython-311.pyc",
    ".fw/generated.json",
    ".fw/devidp.json",
    ".venv/lib/python3.11/site-packages/fw/app.py",
    "venv/lib/site.py",
    ".git/hooks/pre-commit.py",
    "node_modules/x/index.py",
    "build/lib/shop/models.py",
    "src/shop/.#models.py",
    "shop.sqlite3",
    "README.md",
    "src/shop/templates/base.html",
]


@pytest.mark.parametrize("relative", RELOADS)
def test_a_source_or_configuration_file_reloads(tmp_path: Path, relative: str) -> None:
    assert ProjectFilter(tmp_path)(Change.modified, str(tmp_path / relative))


@pytest.mark.parametrize("relative", IGNORED)
def test_generated_cached_hidden_and_other_files_do_not_reload(tmp_path: Path, relative: str) -> None:
    assert not ProjectFilter(tmp_path)(Change.modified, str(tmp_path / relative))


def test_a_file_outside_the_project_does_not_reload(tmp_path: Path) -> None:
    assert not ProjectFilter(tmp_path / "shop")(Change.added, str(tmp_path / "other" / "app.py"))


def test_the_running_virtual_environment_inside_the_project_does_not_reload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A virtual environment of any name, when it is the one running fw dev."""
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "env311"))
    watch = ProjectFilter(tmp_path)
    assert not watch(Change.modified, str(tmp_path / "env311" / "lib" / "python3.11" / "site.py"))
    assert watch(Change.modified, str(tmp_path / "env.py"))


def test_watched_names_are_the_sources_and_configuration_files() -> None:
    assert watched_name("handlers.py") and watched_name("config.local.toml")
    assert not watched_name("_fw_binders.py") and not watched_name("settings.toml")


def test_the_changed_files_are_named_relative_to_the_project_three_at_most(tmp_path: Path) -> None:
    names = [str(tmp_path / name) for name in ("e.py", "d.py", "c.py", "b.py", "a.py", "a.py")]
    assert describe(names, tmp_path) == "a.py, b.py, c.py and 2 more"
    assert describe([str(tmp_path / "src" / "m.py")], tmp_path) == "src/m.py"
