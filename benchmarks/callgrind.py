"""Instructions per request, counted by valgrind's callgrind: figures that do not move with the machine.

A benchmark re-runs itself under callgrind (:func:`instructions_per_call`) with collection
switched on only inside :data:`TOGGLE`, a C function that runs nothing but the measured calls
when they go through :func:`run_counted`. Two trees (``FW_BENCH_SRC``) or two apps can then be
compared exactly, whatever else the machine is doing.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import sys
from collections.abc import Callable

#: Collection is on only inside this C function: ``itertools.starmap``'s step, one per call.
TOGGLE = "starmap_next"


def run_counted(call: Callable[[], object], calls: int) -> None:
    """``call()`` ``calls`` times, each inside :data:`TOGGLE` (to be run under callgrind)."""
    list(itertools.starmap(call, itertools.repeat((), calls)))


def instructions_per_call(arguments: list[str], calls: int) -> float:
    """Instructions per call of ``python <arguments>``, which must run :func:`run_counted` ``calls`` times."""
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install -y valgrind)")
    command = [
        "valgrind", "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={TOGGLE}",
        "--callgrind-out-file=/dev/null", sys.executable, *arguments,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind reported no count for {arguments}:\n{done.stderr[-2000:]}")
    return int(found.group(1)) / calls
