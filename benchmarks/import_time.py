"""What ``import fw`` costs, against ``import starlette.applications``, in fresh interpreters.

A command line, a test run and every worker start pay for the import before anything else, and
``import fw`` must not load what the configuration has not chosen (DESIGN 10.1): the goal is at
most 2.5x Starlette's own import. Each sample is a new interpreter that times only the import
statement (``time.perf_counter`` around it) and counts the modules it added to ``sys.modules``;
the two statements alternate, so a busy moment of the machine falls on both, and the median of
``--rounds`` samples is reported (one unmeasured warm-up each first, so bytecode is compiled).

Run with ``.venv/bin/python benchmarks/import_time.py [--rounds 41] [--goal 2.5]``; it prints a
markdown table and exits 1 when ``import fw`` takes more than ``--goal`` times Starlette's.
``FW_BENCH_SRC`` points at another fw source tree (an older commit) to measure it the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SOURCE = os.environ.get("FW_BENCH_SRC") or str(Path(__file__).resolve().parents[1] / "src")

#: Runs in the fresh interpreter: the source tree goes first on the path, then only the import
#: statement is timed.
PROBE = """
import json, sys, time
sys.path.insert(0, {source!r})
before = len(sys.modules)
start = time.perf_counter()
import {module}
elapsed = time.perf_counter() - start
print(json.dumps({{"seconds": elapsed, "modules": len(sys.modules) - before}}))
"""

STATEMENTS = {"starlette": "starlette.applications", "fw": "fw"}


def sample(module: str) -> tuple[float, int]:
    """One fresh interpreter importing ``module``: seconds and modules added."""
    # -I: no user site, no PYTHON* variables and no working directory on the path, so the
    # interpreter sees only the environment and the source tree.
    output = subprocess.run(
        [sys.executable, "-I", "-c", PROBE.format(source=SOURCE, module=module)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    measured = json.loads(output)
    return measured["seconds"], measured["modules"]


def measure(rounds: int) -> dict[str, tuple[float, int]]:
    """Median seconds and the module count per statement, the statements alternating."""
    times: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    modules: dict[str, int] = {}
    for module in STATEMENTS.values():
        sample(module)  # warm-up: bytecode written, files in the page cache
    for _ in range(rounds):
        for name, module in STATEMENTS.items():
            seconds, count = sample(module)
            times[name].append(seconds)
            modules[name] = count
    return {name: (statistics.median(times[name]), modules[name]) for name in STATEMENTS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41, help="fresh interpreters per statement")
    parser.add_argument("--goal", type=float, default=2.5, help="the most import fw may cost, x Starlette's")
    args = parser.parse_args()
    found = measure(args.rounds)
    base_seconds, _ = found["starlette"]
    print(f"median of {args.rounds} fresh interpreters each, Python {sys.version.split()[0]}\n")
    print("| statement | median | modules loaded | relative |")
    print("|---|---:|---:|---:|")
    for name, module in STATEMENTS.items():
        seconds, count = found[name]
        print(f"| `import {module}` | {seconds * 1000:.1f} ms | {count} | {seconds / base_seconds:.2f}x |")
    ratio = found["fw"][0] / base_seconds
    if ratio > args.goal:
        print(f"\nimport fw takes {ratio:.2f}x import starlette.applications; the goal is {args.goal}x")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
