"""A bare route (``GET /hello`` answering a small JSON document) in fw, Starlette and raw ASGI.

What each framework costs per request when the handler does nothing: in process (each app
called as an ASGI callable, best of interleaved rounds) and over HTTP (one uvicorn worker per
app on 127.0.0.1, wrk, round-robin rounds, best round of each, and each app's ratio to the
floor taken within a round, the median over rounds; servers and wrk on cores of their own, see
``cores.py``). Rows:

* raw ASGI callable (the floor): the same bytes sent with no framework;
* a raw ASGI callable building a Starlette ``Request`` and sending Starlette's ``JSONResponse``:
  the floor plus the objects every Starlette handler receives and returns (an fw handler
  returns ``fw.JSONResponse``, the same bytes rendered for less: docs/performance.md); with
  ``fw.JSONResponse`` it is the ceiling of any core that hands a handler Starlette's ``Request``
  and sends the ``Response`` it returns: what fw would reach if its router, middleware and error
  boundary cost nothing;
* the lean-core prototype (``bare_apps.make_lean_prototype``, see docs/performance.md);
* Starlette; fw.

    .venv/bin/python benchmarks/bare_route.py [--iterations 100] [--rounds 300] [--seconds 8]
        [--http-rounds 3] [--skip-http] [--profile] [--instructions]

``--profile`` prints a cProfile summary of fw's in-process path (by own time). To measure
another fw tree the same way (say the commit before a change), point ``FW_BENCH_SRC`` at its
``src`` folder, for example::

    git archive <commit> src | tar -x -C /tmp/fw-before
    FW_BENCH_SRC=/tmp/fw-before/src .venv/bin/python benchmarks/bare_route.py --skip-http

``--instructions`` also counts each app's instructions per request with callgrind
(``callgrind.py``): figures that do not move with the machine's load, so two trees compare
exactly. The counts include the in-process harness (an event-loop step per request), the same
for every app: read them as differences, the "above the floor" column.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, os.environ.get("FW_BENCH_SRC") or str(HERE.parent / "src"))

import callgrind  # noqa: E402
import cores  # noqa: E402
import wrk  # noqa: E402

SCOPE: dict[str, Any] = {
    "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
    "scheme": "http", "path": "/hello", "raw_path": b"/hello", "query_string": b"", "root_path": "",
    "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
    "headers": [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"wrk"), (b"accept", b"*/*")],
}  # fmt: skip


FLOOR = "raw ASGI callable (the floor)"


def apps() -> list[tuple[str, str, Any]]:
    import bare_apps

    return [
        (FLOOR, "raw_asgi", bare_apps.raw_asgi),
        ("raw ASGI + Request + JSONResponse", "starlette_objects", bare_apps.starlette_objects),
        ("raw ASGI + Request + fw.JSONResponse", "fw_objects", bare_apps.fw_objects),
        ("lean-core prototype", "lean_app", bare_apps.lean_app),
        ("Starlette", "starlette_app", bare_apps.starlette_app),
        ("fw", "fw_app", bare_apps.fw_app),
    ]


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def in_process(iterations: int, rounds: int) -> dict[str, float]:
    """µs per request of each app, best of interleaved rounds; every app must answer 200.

    Rounds are short (well within a scheduler time slice) and many, so that on a shared,
    loaded machine each app still gets rounds nobody else interrupted.
    """
    import fw.configuration

    fw.configuration.ensure_parsed()
    candidates = apps()
    best = {label: float("inf") for label, _, _ in candidates}

    async def run() -> None:
        status: list[int] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        for label, _, app in candidates:
            await app(dict(SCOPE), _receive, send)
            if status[-1] != 200:
                raise RuntimeError(f"{label} answered {status[-1]}")
        for _ in range(rounds):
            for label, _, app in candidates:
                start = time.perf_counter()
                for _ in range(iterations):
                    await app(dict(SCOPE), _receive, send)
                best[label] = min(best[label], (time.perf_counter() - start) / iterations * 1e6)

    asyncio.run(run())
    return best


def count_one(label: str, requests: int) -> None:
    """``requests`` requests of the app ``label`` through :func:`callgrind.run_counted`."""
    import fw.configuration

    fw.configuration.ensure_parsed()
    app = dict((name, found) for name, _, found in apps())[label]
    loop = asyncio.new_event_loop()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and message["status"] != 200:
            raise RuntimeError(f"{label} answered {message['status']}")

    async def call(times: int) -> None:
        for _ in range(times):
            await app(dict(SCOPE), _receive, send)

    loop.run_until_complete(call(300))
    callgrind.run_counted(lambda: loop.run_until_complete(call(1)), requests)
    loop.close()


def instructions(requests: int) -> dict[str, float]:
    """Instructions per request of each app, each counted in a process of its own."""
    counted = {}
    for label, _, _ in apps():
        arguments = [__file__, "--count", label, "--requests", str(requests)]
        counted[label] = callgrind.instructions_per_call(arguments, requests)
    return counted


def profile(iterations: int) -> None:
    import cProfile
    import pstats

    import bare_apps

    import fw.configuration

    fw.configuration.ensure_parsed()

    async def send(message: dict[str, Any]) -> None:
        return None

    async def run() -> None:
        for _ in range(iterations):
            await bare_apps.fw_app(dict(SCOPE), _receive, send)

    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(run())
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


def over_http(seconds: int, connections: int, rounds: int) -> dict[str, list[float]]:
    """Requests/s of each app under uvicorn (one worker, no access log), one figure per round.

    Every round runs each app once, in turn; every other round in the reverse order, so that a
    machine slowing down or speeding up during a round weighs on both ends of the list alike.
    """
    wrk.require()

    def uvicorn(attribute: str) -> Callable[[int], list[str]]:
        def command(port: int) -> list[str]:
            return [sys.executable, "-m", "uvicorn", f"bare_apps:{attribute}", "--port", str(port),
                    "--host", "127.0.0.1", "--no-access-log", "--log-level", "warning"]  # fmt: skip

        return command

    commands = [(label, uvicorn(attribute)) for label, attribute, _ in apps() if attribute]
    measured: dict[str, list[float]] = {label: [] for label, _ in commands}
    with wrk.servers(commands, stdout=subprocess.DEVNULL, wait_seconds=30) as servers:
        for _, port in servers:
            wrk.rps(f"http://127.0.0.1:{port}/hello", 1, connections)  # warm-up
        for round_number in range(rounds):
            for label, port in servers if round_number % 2 == 0 else reversed(servers):
                measured[label].append(wrk.rps(f"http://127.0.0.1:{port}/hello", seconds, connections))
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--http-rounds", type=int, default=3)
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    parser.add_argument("--requests", type=int, default=1000, help="requests counted per app")
    parser.add_argument("--count", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count:
        count_one(args.count, args.requests)
        return
    if args.profile:
        profile(20_000)
        return
    times = in_process(args.iterations, args.rounds)
    starlette = times["Starlette"]
    _table(
        f"In process: best of {args.rounds} interleaved rounds x {args.iterations} requests",
        ("µs per request", "Starlette time / app time"),
        {label: (f"{value:.2f}", f"{starlette / value:.2f}x") for label, value in times.items()},
    )
    if args.instructions:
        counted = instructions(args.requests)
        floor = counted["raw ASGI callable (the floor)"]
        _table(
            f"Instructions per request (callgrind, {args.requests} requests, each app in a process)",
            ("instructions", "above the floor"),
            {label: (f"{value:,.0f}", f"{value - floor:+,.0f}") for label, value in counted.items()},
        )
    if args.skip_http:
        return
    measured = over_http(args.seconds, args.connections, args.http_rounds)
    rps = {label: max(figures) for label, figures in measured.items()}
    paired = {label: wrk.same_round_ratio(figures, measured[FLOOR]) for label, figures in measured.items()}
    _table(
        f"Over HTTP: uvicorn, one worker each, wrk -t1 -c{args.connections} -d{args.seconds}s, "
        f"{args.http_rounds} round-robin rounds (best round; the floor's ratio taken round by round, "
        f"median), {cores.description()}",
        ("req/s", "/ Starlette", "/ the floor, same round", "req/s each round"),
        {
            label: (
                f"{value:,.0f}",
                f"{value / rps['Starlette']:.2f}x",
                f"{paired[label]:.3f}x",
                ", ".join(f"{figure:,.0f}" for figure in measured[label]),
            )
            for label, value in rps.items()
        },
    )


def _table(title: str, columns: tuple[str, ...], rows: dict[str, tuple[str, ...]]) -> None:
    """A Markdown table of figures and ratios per app, under ``title``."""
    print(f"{title}\n\n| app | {' | '.join(columns)} |\n|---|{'---:|' * len(columns)}")
    for label, cells in rows.items():
        print(f"| {label} | {' | '.join(cells)} |")
    print()


if __name__ == "__main__":
    main()
