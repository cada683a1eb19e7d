"""Under ``CI=true`` a skipped test fails the run and is listed with its reason (the hooks in
tests/conftest.py); an expected failure is not a skip, and outside CI a skip stays a skip.

Each case runs pytest in a subprocess on probe files of its own, with tests/conftest.py loaded
as a plugin.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent

PASSING = """
import pytest

def test_runs():
    pass

@pytest.mark.xfail(reason="a known bug", strict=False)
def test_fails_as_expected():
    assert False

@pytest.mark.xfail(reason="a known bug", strict=False)
def test_passes_unexpectedly():
    pass
"""

SKIPPING = """
import pytest

def test_runs():
    pass

@pytest.mark.parametrize("engine", ["one", "two"])
def test_skips(engine):
    if engine == "two":
        pytest.skip("the second engine is not installed")

def test_skipped_by_a_fixture(missing):
    pass

@pytest.fixture
def missing():
    pytest.skip("a program the fixture needs is missing")
"""

SKIPPED_MODULE = """
import pytest

pytest.importorskip("a_module_nobody_installed", reason="the module is missing")

def test_never_collected():
    pass
"""


def _pytest(tmp_path: Path, ci: str, **probes: str) -> subprocess.CompletedProcess[str]:
    for name, probe in probes.items():
        (tmp_path / f"{name}.py").write_text(probe)
    env = {**os.environ, "CI": ci, "PYTHONPATH": str(HERE)}
    command = [
        *(sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider"),
        *("-c", os.devnull, "--rootdir", str(tmp_path), "-q"),
        *("-o", "asyncio_mode=auto", "-o", "asyncio_default_fixture_loop_scope=function"),
        *sorted(f"{name}.py" for name in probes),
    ]
    return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_under_ci_a_skipped_test_fails_the_run_and_is_named_with_its_reason(tmp_path: Path) -> None:
    run = _pytest(tmp_path, "true", test_probe=SKIPPING, test_whole=SKIPPED_MODULE)
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout + run.stderr
    listed = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED test_")]
    assert listed == [  # in the order they happened: collection first
        "SKIPPED test_whole.py: the module is missing",
        "SKIPPED test_probe.py::test_skips[two]: the second engine is not installed",
        "SKIPPED test_probe.py::test_skipped_by_a_fixture: a program the fixture needs is missing",
    ]
    assert "tests skipped under CI=true (the run fails)" in run.stdout


def test_under_ci_a_run_with_nothing_but_a_skipped_module_fails(tmp_path: Path) -> None:
    run = _pytest(tmp_path, "true", test_whole=SKIPPED_MODULE)
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout + run.stderr


def test_under_ci_expected_failures_are_not_skips(tmp_path: Path) -> None:
    run = _pytest(tmp_path, "true", test_probe=PASSING)
    assert run.returncode == pytest.ExitCode.OK, run.stdout + run.stderr
    assert "1 passed, 1 xfailed, 1 xpassed" in run.stdout


def test_outside_ci_a_skip_stays_a_skip(tmp_path: Path) -> None:
    run = _pytest(tmp_path, "", test_probe=SKIPPING)
    assert run.returncode == pytest.ExitCode.OK, run.stdout + run.stderr
    assert "SKIPPED test_probe.py" not in run.stdout
    assert "2 passed, 2 skipped" in run.stdout
