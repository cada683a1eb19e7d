"""Finding a parameterised route: fw's router against Starlette's, in process.

An API of ``--resources`` resources (30 by default), each with the two routes a REST resource
usually has (``GET``/``POST /r{i}`` and ``GET``/``PUT``/``DELETE /r{i}/{id}``), the
parameterised ones registered after the fixed ones. Both routers get the same routes and the
same tiny endpoint per route (what is timed is finding the route, reading its parameters and
calling the endpoint): Starlette's ``Router`` scans the routes in order, a regular expression
and a Python call per route; fw's request path (:class:`fw.core.serve.RequestPath` on
:class:`fw.core.router.Router`) answers fixed paths from a table and parameterised ones from one
combined pattern per method. Rows: the first resource's item, the middle one's, the last one's,
and a path no route matches (404).

Two measures, as in ``bearer_path.py``: µs per request (best of many short interleaved rounds)
and, with ``--instructions``, instructions per request counted by callgrind.

    .venv/bin/python benchmarks/routing.py [--resources 30] [--rounds 200] [--instructions]

``FW_BENCH_SRC`` points at another fw tree's ``src`` to measure it the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, os.environ.get("FW_BENCH_SRC") or str(HERE.parent / "src"))

import callgrind  # noqa: E402

ROUTERS = ("Starlette Router", "fw Router")


async def _endpoint(request: Any) -> Any:
    from starlette.responses import Response

    return Response(b"")


def _routes(route: Any, resources: int) -> list[Any]:
    fixed = [route(f"/r{i}", _endpoint, methods=["GET", "POST"]) for i in range(resources)]
    items = [route(f"/r{i}/{{id}}", _endpoint, methods=["GET", "PUT", "DELETE"]) for i in range(resources)]
    return fixed + items


def _router(name: str, resources: int) -> Any:
    if name == ROUTERS[1]:
        from fw.core.router import Router
        from fw.core.routes import Route
        from fw.core.serve import RequestPath

        return RequestPath(Router(_routes(Route, resources)))
    from starlette import routing

    return routing.Router(_routes(routing.Route, resources))


def _requests(resources: int) -> dict[str, str]:
    return {
        "first resource's item": "/r0/7",
        "middle resource's item": f"/r{resources // 2}/7",
        "last resource's item": f"/r{resources - 1}/7",
        "no route (404)": "/nowhere/7",
    }


class _Bench:
    def __init__(self, router: Any, path: str) -> None:
        self.router, self.path = router, path
        self.statuses: list[int] = []

    async def receive(self) -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.statuses.append(message["status"])

    async def run(self, iterations: int) -> None:
        path = self.path
        for _ in range(iterations):
            scope = {"type": "http", "method": "GET", "path": path, "root_path": "", "headers": []}
            await self.router(scope, self.receive, self.send)


def timed(resources: int, rounds: int, iterations: int) -> dict[tuple[str, str], float]:
    loop = asyncio.new_event_loop()
    benches = {
        (request, name): _Bench(_router(name, resources), path)
        for request, path in _requests(resources).items()
        for name in ROUTERS
    }
    best = dict.fromkeys(benches, float("inf"))
    for bench in benches.values():
        loop.run_until_complete(bench.run(50))
    for _ in range(rounds):
        for key, bench in benches.items():
            start = time.perf_counter()
            loop.run_until_complete(bench.run(iterations))
            best[key] = min(best[key], (time.perf_counter() - start) / iterations * 1e6)
    loop.close()
    for (request, _), bench in benches.items():
        expected = 404 if "404" in request else 200
        if set(bench.statuses) != {expected}:
            raise RuntimeError(f"{request} answered {set(bench.statuses)}")
    return best


def count_one(name: str, path: str, resources: int, requests: int) -> None:
    loop = asyncio.new_event_loop()
    bench = _Bench(_router(name, resources), path)
    loop.run_until_complete(bench.run(50))
    callgrind.run_counted(lambda: loop.run_until_complete(bench.run(1)), requests)
    loop.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--resources", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    parser.add_argument("--requests", type=int, default=1000, help="requests counted per cell")
    parser.add_argument("--count", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count:
        count_one(args.count[0], args.count[1], args.resources, args.requests)
        return
    requests = _requests(args.resources)
    figures = timed(args.resources, args.rounds, args.iterations)
    print(
        f"{args.resources} resources, {2 * args.resources} routes; in process, best of {args.rounds} "
        f"interleaved rounds of {args.iterations} (µs per request):\n"
    )
    print(f"| request | {' | '.join(ROUTERS)} | fw / Starlette |")
    print("|---|---:|---:|---:|")
    for request in requests:
        scan, ours = (figures[(request, name)] for name in ROUTERS)
        print(f"| {request} | {scan:.2f} | {ours:.2f} | {ours / scan:.2f}x |")
    if args.instructions:
        print(f"\nInstructions per request (callgrind, {args.requests} requests):\n")
        print(f"| request | {' | '.join(ROUTERS)} | fw / Starlette |")
        print("|---|---:|---:|---:|")
        for request, path in requests.items():
            counts = []
            for name in ROUTERS:
                arguments = [__file__, "--count", name, path, "--resources", str(args.resources)]
                counts.append(
                    callgrind.instructions_per_call(
                        [*arguments, "--requests", str(args.requests)], args.requests
                    )
                )
            print(f"| {request} | {counts[0]:,.0f} | {counts[1]:,.0f} | {counts[1] / counts[0]:.2f}x |")


if __name__ == "__main__":
    main()
