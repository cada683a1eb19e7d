"""What a bearer token adds to a request of the same jwt_only App, in process.

The App is the one ``jwt_rps.py`` serves (``jwt_servers.fw_app``: revocation off, the
verified-token cache on), called as an ASGI callable with no HTTP server. Rows: a bare route
(no token), ``GET /api/me`` with the same token on every request (served from the cache), and
with a different token on every request (cycling through 6,000 tokens, more than the cache's
doorkeeper remembers, so every one is verified; see ``jwt_rps.py``). A last row is not fw: the
floor of ``jwt_rps.py`` (``jwt_servers.floor_app``, a raw ASGI callable checking the RSA
signature and nothing else) on the same different tokens, so that what fw's whole request adds
to the signature check reads off the same table.

Three measures:

* time: µs per request, best of many short interleaved rounds (see docs/performance.md on
  reading the numbers);
* ``--instructions``: CPU instructions per request counted by valgrind's callgrind, which do
  not move with the machine's load or clock, so two trees can be compared exactly. Each row
  runs in its own process under callgrind with collection only around the measured requests;
* ``--after-signature``: what a request's framework part costs right after an RSA-2048
  signature check, against the same request alone: the situation of every different-token
  request, whose handler, response and framework code run after OpenSSL's verify has evicted
  much of what they keep in the CPU's caches. Rows: fw's bare route, fw's repeated token
  (its framework and bearer code without a signature check), and the floor's ASGI callable
  answering a request without a token (all it does besides the check).

    .venv/bin/python benchmarks/bearer_path.py [--rounds 300] [--iterations 100] [--instructions]
        [--after-signature]

To compare with another fw tree, point ``FW_BENCH_SRC`` at its ``src`` folder (see
``bare_route.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, os.environ.get("FW_BENCH_SRC") or str(HERE.parent / "src"))

import callgrind  # noqa: E402

ROWS = ("bare route", "repeated token", "different token", "the floor, different token")
_BASE: dict[str, Any] = {
    "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
    "scheme": "http", "query_string": b"", "root_path": "", "client": ("127.0.0.1", 5000),
    "server": ("127.0.0.1", 8000),
}  # fmt: skip


def _scope(path: str, token: str | None) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"wrk"), (b"accept", b"*/*")]
    if token is not None:
        headers.append((b"authorization", b"Bearer " + token.encode()))
    return {**_BASE, "path": path, "raw_path": path.encode(), "headers": headers}


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


class Bench:
    """The App started in process against ``issuer`` (its URL), and one scope source per row.

    ``tokens[0]`` is the repeated token, the rest are cycled through by the different-token row.
    """

    def __init__(self, issuer: str, tokens: list[str]) -> None:
        import jwt_servers

        from fw.rdb.migrate import upgrade

        self._workdir = tempfile.mkdtemp(prefix="fw-bearer-")
        dsn = f"sqlite:///{self._workdir}/unused.sqlite3"
        asyncio.run(upgrade(dsn))
        options = {"issuer": issuer, "revocation": "off", "dsn": dsn, "port": 1}
        self.app = jwt_servers.fw_app({**options, "workdir": self._workdir})
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self.app.startup())
        self.app.build()
        repeated = _scope("/api/me", tokens[0])
        different = [_scope("/api/me", token) for token in tokens[1:]]
        # A cycle per row: fw's row must meet every token of the cycle, not every other one
        # (half the cycle fits the cache's doorkeeper, and its rhythm then serves hits).
        cycles = {row: itertools.cycle(different) for row in ROWS[2:]}
        bare = _scope("/hello", None)
        self.scopes: dict[str, Callable[[], dict[str, Any]]] = {
            "bare route": lambda: dict(bare),
            "repeated token": lambda: dict(repeated),
            **{row: (lambda c=cycle: dict(next(c))) for row, cycle in cycles.items()},
        }
        floor = jwt_servers.floor_app(issuer)
        self.apps: dict[str, Any] = dict.fromkeys(self.scopes, self.app)
        self.apps["the floor, different token"] = floor
        self.status: list[int] = []

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status.append(message["status"])

    async def call(self, row: str, iterations: int) -> None:
        scope, app = self.scopes[row], self.apps[row]
        for _ in range(iterations):
            await app(scope(), _receive, self.send)
        if self.status[-1] != 200:
            raise RuntimeError(f"{row} answered {self.status[-1]}")

    def close(self) -> None:
        self.loop.run_until_complete(self.app.shutdown())
        self.loop.close()
        shutil.rmtree(self._workdir, ignore_errors=True)


def timed(issuer: str, tokens: list[str], rounds: int, iterations: int) -> dict[str, float]:
    bench = Bench(issuer, tokens)
    best = dict.fromkeys(ROWS, float("inf"))
    try:
        for row in ROWS:  # warm-up: the repeated token is verified twice, then cached
            bench.loop.run_until_complete(bench.call(row, 200))
        for _ in range(rounds):
            for row in ROWS:
                start = time.perf_counter()
                bench.loop.run_until_complete(bench.call(row, iterations))
                best[row] = min(best[row], (time.perf_counter() - start) / iterations * 1e6)
    finally:
        bench.close()
    return best


AFTER_ROWS = ("bare route", "repeated token", "the floor, no token")


def after_signature(
    issuer: str, tokens: list[str], rounds: int, iterations: int
) -> dict[str, tuple[float, float]]:
    """Per row of :data:`AFTER_ROWS`: (µs alone, µs added to an RSA check run just before it).

    Rounds interleave every row alone, every row after a check, and the check alone; best of
    each. The check is the one the floor and fw make (RS256, PKCS#1 v1.5 with SHA-256, 2048 bits).
    """
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    private = rsa.generate_private_key(65537, 2048)
    public, pkcs1, sha256 = private.public_key(), padding.PKCS1v15(), hashes.SHA256()
    signed = tokens[1].rpartition(".")[0].encode()
    signature = private.sign(signed, pkcs1, sha256)
    bench = Bench(issuer, tokens)
    bench.scopes["the floor, no token"] = bench.scopes["bare route"]
    bench.apps["the floor, no token"] = bench.apps["the floor, different token"]

    async def run(row: str | None, check: bool) -> None:
        scope, app = (bench.scopes[row], bench.apps[row]) if row else (None, None)
        for _ in range(iterations):
            if check:
                public.verify(signature, signed, pkcs1, sha256)
            if scope is not None:
                await app(scope(), _receive, bench.send)

    def one_round(row: str | None, check: bool) -> float:
        start = time.perf_counter()
        bench.loop.run_until_complete(run(row, check))
        return (time.perf_counter() - start) / iterations * 1e6

    cases = [(row, check) for row in (*AFTER_ROWS, None) for check in (False, True) if row or check]
    best = dict.fromkeys(cases, float("inf"))
    try:
        for row in AFTER_ROWS:
            bench.loop.run_until_complete(run(row, False))  # warm-up (the repeated token enters the cache)
            bench.loop.run_until_complete(run(row, False))
        for _ in range(rounds):
            for case in cases:
                best[case] = min(best[case], one_round(*case))
    finally:
        bench.close()
    check_alone = best[(None, True)]
    return {row: (best[(row, False)], best[(row, True)] - check_alone) for row in AFTER_ROWS}


def count_one(row: str, requests: int, issuer: str, token_file: str) -> None:
    """Run ``requests`` requests of ``row`` through :func:`callgrind.run_counted`."""
    bench = Bench(issuer, Path(token_file).read_text().split())
    try:
        bench.loop.run_until_complete(bench.call(row, 300))

        def one() -> None:
            bench.loop.run_until_complete(bench.call(row, 1))

        callgrind.run_counted(one, requests)
    finally:
        bench.close()


def instructions(issuer: str, tokens: list[str], requests: int) -> dict[str, float]:
    """Each row counted in a process of its own under callgrind, against the same issuer."""
    counted: dict[str, float] = {}
    with tempfile.NamedTemporaryFile("w", suffix=".tokens") as token_file:
        token_file.write("\n".join(tokens))
        token_file.flush()
        for row in ROWS:
            arguments = [__file__, "--count", row, "--requests", str(requests)]
            arguments += ["--issuer", issuer, "--token-file", token_file.name]
            counted[row] = callgrind.instructions_per_call(arguments, requests)
    return counted


def _table(title: str, unit: str, figures: dict[str, float], digits: int) -> None:
    bare = figures["bare route"]
    print(f"{title}\n\n| request | {unit} | / bare route | added to the bare route |")
    print("|---|---:|---:|---:|")
    for row in ROWS:
        value = figures[row]
        print(f"| {row} | {value:,.{digits}f} | {value / bare:.2f}x | {value - bare:+,.{digits}f} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--tokens", type=int, default=6000, help="tokens for the different-token row")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    parser.add_argument("--requests", type=int, default=1000, help="requests counted per row")
    parser.add_argument(
        "--after-signature", action="store_true", help="also time each request right after an RSA check"
    )
    parser.add_argument("--count", choices=ROWS, help=argparse.SUPPRESS)
    parser.add_argument("--issuer", help=argparse.SUPPRESS)
    parser.add_argument("--token-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count:
        count_one(args.count, args.requests, args.issuer, args.token_file)
        return
    from fw.testing.issuer import LocalIssuer

    with LocalIssuer() as issuer:  # serves its JWKS to every App below, in process or not
        lifetime = timedelta(minutes=50)
        subjects = ["bench-user", *(f"user-{n}" for n in range(args.tokens))]
        tokens = [issuer.mint(s, scope="orders.read", audience="api", lifetime=lifetime) for s in subjects]
        figures = timed(issuer.url, tokens, args.rounds, args.iterations)
        _table(
            f"In process, best of {args.rounds} interleaved rounds of {args.iterations}:", "µs", figures, 2
        )
        if args.after_signature:
            after_rounds = args.rounds // 3 or 1
            after = after_signature(issuer.url, tokens, after_rounds, args.iterations)
            print(
                f"Right after an RSA check, best of {after_rounds} interleaved rounds of "
                f"{args.iterations} (µs added to the check alone):\n"
            )
            print("| request | alone µs | after an RSA check µs | after / alone |")
            print("|---|---:|---:|---:|")
            for row, (alone, after_check) in after.items():
                print(f"| {row} | {alone:.2f} | {after_check:.2f} | {after_check / alone:.2f}x |")
            print()
        if args.instructions:
            counted = instructions(issuer.url, tokens, args.requests)
            title = f"Instructions per request (callgrind, {args.requests} requests):"
            _table(title, "instructions", counted, 0)


if __name__ == "__main__":
    main()
