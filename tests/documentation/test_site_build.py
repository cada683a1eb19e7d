"""``mkdocs build --strict`` succeeds: every page in the nav exists, every link and anchor
resolves, nothing is left out of the nav unnoticed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from documentation.samples import REPO


def test_the_documentation_site_builds_strictly(tmp_path: Path) -> None:
    if shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[test]' installs mkdocs-material)")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "reference" / "configuration-keys" / "index.html").is_file()
