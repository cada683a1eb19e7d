"""The test patterns docs/testing.md shows (an async test, one provider per session) run as a
project's suite would run them: each block that starts with ``# tests/<file>.py`` is written to
that file of a fresh project and the project's tests run under pytest in a fresh interpreter,
with an implicitly configured App made an error."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from documentation.samples import REPO, samples

PAGE = REPO / "docs" / "testing.md"
FILE_LINE = re.compile(r"# (?P<path>tests/\w+\.py)\n")


def _files() -> dict[str, str]:
    found: dict[str, str] = {}
    for sample in samples(PAGE):
        named = FILE_LINE.match(sample.code)
        if named:
            found[named["path"]] = sample.code
    return found


def test_the_page_shows_an_async_test_and_a_session_provider_as_project_files() -> None:
    assert sorted(_files()) == ["tests/conftest.py", "tests/test_async.py", "tests/test_me.py"]


def test_the_page_s_async_and_session_provider_patterns_pass_under_pytest(tmp_path: Path) -> None:
    for path, code in _files().items():
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).write_text(code, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "--setup-show",
            "-p",
            "no:cacheprovider",
            "-W",
            "error::fw.testing.UnconfiguredAppWarning",
            "tests",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "3 passed" in result.stdout
    assert "warning" not in result.stdout.lower(), result.stdout
    assert result.stdout.count("SETUP    S idp") == 1  # one provider for the whole session
    assert result.stdout.count("SETUP    F client") == 2  # a client of its own for each test
