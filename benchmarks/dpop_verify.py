"""In-process cost of a DPoP request next to a plain bearer request, through ``jwt_only``'s middleware.

Each request is one ASGI call of a small app behind the ``jwt_only`` middleware: the token
verification, admission, account and (for DPoP) the proof checks, the binding to ``cnf.jkt``,
the in-process replay record and the take-once record in the ``auth.backend`` store DPoP opens
(one conditional insert per DPoP request; ``--dsn`` names the database, migrated here, else a
SQLite file in a temporary directory). Tokens are RS256 from a local issuer; proofs are ES256,
the algorithm DPoP clients use most. Proofs are single-use, so every timed DPoP request carries a
proof minted before the clock starts. Also timed: the proof verification alone. Prints a table.

    .venv/bin/python benchmarks/dpop_verify.py [--iterations 500] [--rounds 9] [--dsn postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from auth_dpop.support import DpopClient  # the tests' proof minting (joserfc)
from auth_jwt.settings import auth_settings, jwt_settings
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from fw.auth.dpop import ProofRules, ProofVerifier
from fw.auth.modes.jwt_only import JwtOnly
from fw.auth.stores.select import middleware_settings
from fw.auth.tokens.algorithms import ALGORITHMS
from fw.core.middleware import Pipeline
from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer

URL = "http://bench.local/api/orders"


async def _ok(_request: Any) -> PlainTextResponse:
    return PlainTextResponse("ok")


def _scope(headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "server": ("bench.local", 80),
        "path": "/api/orders",
        "raw_path": b"/api/orders",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"bench.local"), *headers],
    }


def caller(app: Any) -> Callable[[list[tuple[bytes, bytes]]], Awaitable[int]]:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def call(headers: list[tuple[bytes, bytes]]) -> int:
        status = 0

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        await app(_scope(headers), receive, send)
        return status

    return call


async def per_request(
    candidates: list[Callable[[], Awaitable[int]]], iterations: int, rounds: int
) -> list[float]:
    """Microseconds per request of each candidate: the best of interleaved rounds."""
    best = [float("inf")] * len(candidates)
    for _ in range(rounds):
        for index, candidate in enumerate(candidates):
            start = time.perf_counter()
            for _ in range(iterations):
                status = await candidate()
                if status != 200:
                    raise RuntimeError(f"candidate {index} answered {status}")
            best[index] = min(best[index], (time.perf_counter() - start) / iterations * 1e6)
    return best


async def started(issuer: LocalIssuer, dpop: str, dsn: str) -> tuple[JwtOnly, Any]:
    settings = auth_settings(replace(jwt_settings(issuer.url), dpop=dpop))
    extension = JwtOnly(settings, middleware_settings(dsn))
    await extension.startup()
    app: Any = Pipeline(Starlette(routes=[Route("/api/orders", _ok)]), extension.middleware())
    return extension, app


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--dsn", default="", help="the auth.backend database (default: a temporary SQLite)")
    args = parser.parse_args()
    with LocalIssuer() as issuer, tempfile.TemporaryDirectory() as folder:
        dsn = args.dsn or f"sqlite:///{Path(folder) / 'fw.sqlite3'}"
        await upgrade(dsn)
        client = DpopClient("ES256")
        plain = issuer.mint("bench", audience="api")
        bound = issuer.mint("bench", audience="api", claims={"cnf": {"jkt": client.jkt}})
        needed = args.iterations * args.rounds + 1
        proofs: Iterator[str] = iter([client.proof("GET", URL, bound) for _ in range(needed)])
        lone: Iterator[str] = iter([client.proof("GET", URL, bound) for _ in range(needed)])
        off, off_app = await started(issuer, "off", dsn)
        allowed, allowed_app = await started(issuer, "allowed", dsn)
        try:
            call_off, call_allowed = caller(off_app), caller(allowed_app)
            bearer_header = [(b"authorization", f"Bearer {plain}".encode())]
            verifier = ProofVerifier(ProofRules(algorithms=tuple(ALGORITHMS)))

            async def bearer_off() -> int:
                return await call_off(bearer_header)

            async def bearer_allowed() -> int:
                return await call_allowed(bearer_header)

            async def dpop_request() -> int:
                headers = [(b"authorization", f"DPoP {bound}".encode()), (b"dpop", next(proofs).encode())]
                return await call_allowed(headers)

            async def proof_alone() -> int:
                verifier.verify(next(lone), method="GET", url=URL, now=time.time(), access_token=bound)
                return 200

            plain_off, plain_allowed, with_dpop, alone = await per_request(
                [bearer_off, bearer_allowed, dpop_request, proof_alone], args.iterations, args.rounds
            )
        finally:
            await off.shutdown()
            await allowed.shutdown()
    print(
        f"best of {args.rounds} interleaved rounds x {args.iterations} requests, RS256 tokens, "
        f"ES256 proofs, Python {sys.version.split()[0]}\n"
    )
    print("| One request through `jwt_only` (in process) | µs per request | above plain bearer |")
    print("|---|---:|---:|")
    print(f"| Bearer token, `auth.jwt.dpop = off` | {plain_off:.1f} | - |")
    gate = plain_allowed - plain_off
    print(f"| Bearer token, `auth.jwt.dpop = allowed` | {plain_allowed:.1f} | {gate:+.1f} µs |")
    store = "PostgreSQL" if dsn.startswith("postgresql") else "SQLite"
    dpop_row = f"| DPoP-bound token + proof, `allowed` (replay record in {store}) |"
    print(f"{dpop_row} {with_dpop:.1f} | {with_dpop - plain_off:+.1f} µs |")
    print(f"| the ES256 proof verification alone | {alone:.1f} | |")


if __name__ == "__main__":
    asyncio.run(main())
