"""Where an HTTP benchmark's servers and its load generator run: on cores of their own.

Left to the scheduler on a small machine, wrk and the uvicorn worker it measures keep landing
on the same core; a run then measures how often they collided as much as what the server
costs, and two runs of one command differed by a third. Pinned, the server under test has a
core wrk never touches: every peer gets the same core on the same terms, a round repeats to a
few percent, and the figures read as the server's own cost per request.

Servers run on core 0 and wrk on core 1 (with ``taskset``, from util-linux). On a machine with
a single core, without ``taskset``, or with ``FW_BENCH_PIN=0``, nothing is pinned and
:func:`description` says so in the printed table heading.
"""

from __future__ import annotations

import os
import shutil

SERVER_CORE = 0
LOAD_CORE = 1


def pinned() -> bool:
    """True when servers and wrk are kept on separate cores."""
    return (
        os.environ.get("FW_BENCH_PIN", "1") != "0"
        and (os.cpu_count() or 1) > LOAD_CORE
        and shutil.which("taskset") is not None
    )


def _on(core: int, command: list[str]) -> list[str]:
    return ["taskset", "--cpu-list", str(core), *command] if pinned() else command


def server(command: list[str]) -> list[str]:
    """``command`` (a server process) run on the servers' core."""
    return _on(SERVER_CORE, command)


def load(command: list[str]) -> list[str]:
    """``command`` (wrk) run on the load generator's core."""
    return _on(LOAD_CORE, command)


def description() -> str:
    """How the run placed its processes, for the table heading."""
    if pinned():
        return f"server on core {SERVER_CORE}, wrk on core {LOAD_CORE} ({os.cpu_count()} cores)"
    return f"server and wrk unpinned ({os.cpu_count()} cores)"
