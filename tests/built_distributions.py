"""fw's wheel and sdist, built once per test session by ``python -m build`` from this work tree.

The packaging tests read what the wheel carries and the newcomer tests install it in clean
virtual environments: both need the distributions a release would publish, not the editable
install the suite itself runs on. Building takes a few seconds, so the first caller builds
into the session's temporary folder and every later caller gets the same files.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Distributions:
    folder: Path  # what ``pip install --find-links`` is pointed at
    wheel: Path
    sdist: Path


def built(factory: pytest.TempPathFactory) -> Distributions:
    """The wheel and sdist of this work tree, built on the first call of the session."""
    return _built_under(factory.getbasetemp())


@functools.cache
def _built_under(session_folder: Path) -> Distributions:
    folder = Path(tempfile.mkdtemp(prefix="dist-", dir=session_folder))
    result = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(folder), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, (
        f"python -m build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
    [wheel] = folder.glob("fw_web-*.whl")
    [sdist] = folder.glob("fw_web-*.tar.gz")
    return Distributions(folder, wheel, sdist)
