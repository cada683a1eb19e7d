"""What every HTTP benchmark does around its servers: a free port, servers started on the servers'
core and waited for, wrk run on the load core and its output read.

One runner, so that each benchmark's figures come from the same wrk command and the same
reading of its output (a non-2xx answer fails the run rather than counting as a fast request).
Placement on cores is ``cores.py``'s.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

import cores

HERE = Path(__file__).resolve().parent


def require() -> None:
    """Stop the run with a one-line hint when wrk is not installed."""
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install -y wrk)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait(port: int, seconds: float = 60) -> None:
    """Return once something accepts connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not start")


def server_env() -> dict[str, str]:
    """The environment of a server process: ``benchmarks/`` and fw's ``src`` (or ``FW_BENCH_SRC``)
    importable."""
    src = os.environ.get("FW_BENCH_SRC") or HERE.parent / "src"
    return {**os.environ, "PYTHONPATH": f"{HERE}:{src}"}


@contextlib.contextmanager
def servers(
    commands: Iterable[tuple[str, Callable[[int], list[str]]]],
    *,
    stdout: int | IO[bytes] | None = None,
    wait_seconds: float = 60,
) -> Iterator[list[tuple[str, int]]]:
    """Each ``(label, command)`` started on the servers' core, the command given a free port; yields
    ``(label, port)`` once every server listens, and stops them all when the block ends."""
    started: list[tuple[str, int, subprocess.Popen[bytes]]] = []
    try:
        for label, command in commands:
            port = free_port()
            process = subprocess.Popen(cores.server(command(port)), env=server_env(), cwd=HERE, stdout=stdout)
            started.append((label, port, process))
        for _, port, _ in started:
            wait(port, wait_seconds)
        yield [(label, port) for label, port, _ in started]
    finally:
        for _, _, process in started:
            process.terminate()
            process.wait(timeout=10)


def run(
    url: str,
    seconds: int,
    connections: int,
    options: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> str:
    """The output of ``wrk -t1 -c<connections> -d<seconds>s <options> <url>`` on the load core;
    any non-2xx/3xx answer is an error."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", *options, url]
    output = subprocess.run(cores.load(command), capture_output=True, text=True, check=True, env=env).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        raise RuntimeError(f"{errors.group(1)} failed responses from {url}:\n{output}")
    return output


def requests_per_second(output: str) -> float:
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]


def rps(url: str, seconds: int, connections: int, headers: Mapping[str, str] | None = None) -> float:
    """Requests/s of ``GET url`` with these headers."""
    options = [part for name, value in (headers or {}).items() for part in ("-H", f"{name}: {value}")]
    return requests_per_second(run(url, seconds, connections, options))


def same_round_ratio(first: Sequence[float], second: Sequence[float]) -> float:
    """The median over rounds of ``first``'s figure over ``second``'s in the same round.

    On a machine whose speed moves from one minute to the next (a shared host), two best rounds
    may come from different minutes; a ratio taken within one round compares two figures of the
    same minute, and the median leaves out a round that one of them lost to a neighbour.
    """
    return statistics.median(a / b for a, b in zip(first, second, strict=True))
