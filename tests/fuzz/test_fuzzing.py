"""Coverage-guided fuzzing (atheris) of fw's parsers, bounded, plus a replay of the seed corpus.

Each target runs in its own process (libFuzzer ends its process when it stops) for a bounded
number of inputs and seconds, starting from the committed corpus under ``tests/fuzz/corpus``;
what it discovers goes to a scratch directory, never into the repository. A crash or a
misbehaviour (see ``targets.py``) fails the run and leaves the input in the log. For a longer
campaign: ``python tests/fuzz/run.py TARGET -max_total_time=600 /tmp/new tests/fuzz/corpus/TARGET``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .targets import CORPUS, TARGETS

HERE = Path(__file__).resolve().parent
#: Inputs and seconds per target in the test suite (FW_FUZZ_RUNS / FW_FUZZ_SECONDS widen it).
RUNS = int(os.environ.get("FW_FUZZ_RUNS", "20000"))
SECONDS = int(os.environ.get("FW_FUZZ_SECONDS", "10"))


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_committed_corpus_replays_without_a_misbehaviour(target: str) -> None:
    seeds = sorted((CORPUS / target).iterdir())
    assert seeds, f"no seed corpus for {target}"
    for seed in seeds:
        TARGETS[target](seed.read_bytes())


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_bounded_atheris_run_finds_no_crash(target: str, tmp_path: Path) -> None:
    pytest.importorskip("atheris", reason="atheris is part of fw-web[test] on Linux")
    found = tmp_path / "found"
    found.mkdir()
    command = [
        sys.executable,
        str(HERE / "run.py"),
        target,
        f"-runs={RUNS}",
        f"-max_total_time={SECONDS}",
        "-timeout=10",
        "-rss_limit_mb=2048",
        f"-artifact_prefix={tmp_path}/",
        str(found),
        str(CORPUS / target),
    ]
    finished = subprocess.run(
        command, capture_output=True, text=True, timeout=SECONDS + 120, cwd=HERE, check=False
    )
    log = finished.stderr[-4000:]
    assert finished.returncode == 0, f"atheris stopped on {target}:\n{log}"
    assert "Done " in finished.stderr, log
    assert not list(tmp_path.glob("crash-*")), log
