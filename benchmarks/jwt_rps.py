"""End-to-end requests/second of a protected GET with an RS256 bearer token: fw vs its peers.

Peers: Starlette + joserfc and FastAPI + PyJWT, hand-built to do fw's checks (see
``jwt_servers.py``). One uvicorn process per server, wrk on 127.0.0.1, per scenario: revocation
off; revocation both with max_propagation_delay 0 on SQLite; the same on PostgreSQL
(``FW_BENCH_POSTGRES_DSN``, default the local test server). Each scenario runs twice: the same
token on every request (what fw's verified-token cache serves) and a different token on every
request (a wrk Lua script cycling through 6,000 tokens: more than the cache's doorkeeper
remembers, 4 x 1,024, so a token has been forgotten when it comes back and fw verifies every
one; with fewer, 3,000 say, the doorkeeper's rhythm serves about a fifth of them from the
cache). With revocation off the run also times the floor (``serve_floor``: a raw ASGI callable
checking only the RSA signature), which bounds what any verifying server can reach over the
same HTTP server. Servers and wrk run on cores of their own (``cores.py``). ``--rounds``
repeats every measurement round-robin and keeps each server's best, so the peers meet the same
machine noise; the two targets' ratios (a repeated token against the same App's bare route, a
different token against the floor) are also taken within each round, from two measurements
made one right after the other, and their median printed. Prints Markdown tables.

    .venv/bin/python benchmarks/jwt_rps.py [--duration 8] [--connections 32] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import cores
import httpx2
from wrk import free_port, requests_per_second, same_round_ratio
from wrk import require as require_wrk
from wrk import run as run_wrk

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from fw.rdb.migrate import upgrade  # noqa: E402
from fw.testing.issuer import LocalIssuer  # noqa: E402

SERVERS = Path(__file__).with_name("jwt_servers.py")


def start(kind: str, options: dict[str, object]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        cores.server([sys.executable, str(SERVERS), kind, json.dumps(options)]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{options['port']}/api/me"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx2.get(url, timeout=1)
            return process
        except httpx2.HTTPError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{kind} server did not start: {process.communicate()[1].decode()[-2000:]}")


_CYCLE = """
local tokens = {}
for line in io.lines(os.getenv("FW_BENCH_TOKENS")) do tokens[#tokens + 1] = line end
local i = 0
request = function()
  i = i % #tokens + 1
  return wrk.format("GET", nil, {["Authorization"] = "Bearer " .. tokens[i]})
end
"""


def wrk(
    url: str, token: str | Path | None, duration: int, connections: int, scheme: str = "Bearer"
) -> tuple[float, str]:
    """Requests/s and average latency: one ``token`` on every request, a file of them to cycle, or none.

    One ``token`` is sent as ``Authorization: <scheme> <token>``.
    """
    options: list[str] = []
    env = dict(os.environ)
    if token is None:
        pass
    elif isinstance(token, Path):
        script = token.with_suffix(".lua")
        script.write_text(_CYCLE)
        options += ["-s", str(script)]
        env["FW_BENCH_TOKENS"] = str(token)
    else:
        options += ["-H", f"Authorization: {scheme} {token}"]
    out = run_wrk(url, duration, connections, options, env)
    latency = re.search(r"Latency\s+(\S+)", out)
    return requests_per_second(out), latency.group(1) if latency else "?"


def pg_database(admin: str) -> str:
    import asyncpg

    name = f"fw_bench_jwt_{os.getpid()}"

    async def create() -> None:
        conn = await asyncpg.connect(admin)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await conn.execute(f'CREATE DATABASE "{name}"')
        await conn.close()

    asyncio.run(create())
    parts = urlsplit(admin)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


def drop_pg_database(admin: str, dsn: str) -> None:
    import asyncpg

    async def drop() -> None:
        conn = await asyncpg.connect(admin)
        await conn.execute(f'DROP DATABASE IF EXISTS "{urlsplit(dsn).path[1:]}" WITH (FORCE)')
        await conn.close()

    asyncio.run(drop())


SERVERS_IN_ORDER = ("fw", "starlette", "fastapi")
#: The two pairs each target compares, measured one right after the other in every round.
PAIRS = ((("fw", "repeated"), ("bare", "bare")), (("fw", "different"), ("floor", "different")))
LABELS = {"fw": "fw", "starlette": "Starlette + joserfc", "fastapi": "FastAPI + PyJWT"}


def measurement_order(kinds: tuple[str, ...], round_number: int) -> list[tuple[str, str]]:
    """The ``(server, token)`` measurements of one round, in order.

    The two of each target's pair (a repeated token and the same App's bare route; a different
    token and the floor's) run one right after the other, the pair's order swapped every other
    round, so that a ratio taken within a round compares two figures of the same minute on a
    machine whose speed moves; the peers follow.
    """
    pairs = [pair for pair in PAIRS if all(kind in kinds or kind == "bare" for kind, _ in pair)]
    order = [measurement for pair in pairs for measurement in (pair if round_number % 2 == 0 else pair[::-1])]
    rest = [(kind, which) for which in ("repeated", "different") for kind in kinds]
    return order + [measurement for measurement in rest if measurement not in order]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=6000, help="distinct tokens for the cycling runs")
    parser.add_argument("--only", default="", help="run only scenarios whose label contains this text")
    args = parser.parse_args()
    require_wrk()
    admin = os.environ.get("FW_BENCH_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test")
    workdir = Path(tempfile.mkdtemp(prefix="fw-bench-"))
    sqlite = f"sqlite:///{workdir / 'bench.sqlite3'}"
    asyncio.run(upgrade(sqlite))
    postgres = pg_database(admin)
    asyncio.run(upgrade(postgres))
    scenarios = [
        ("revocation off", "off", sqlite),
        ("revocation both, delay 0, SQLite", "both", sqlite),
        ("revocation both, delay 0, PostgreSQL", "both", postgres),
    ]
    scenarios = [s for s in scenarios if args.only.lower() in s[0].lower()]
    rows = []
    bare_rows = []
    floor_rows = []
    rounds: dict[tuple[str, str, str], list[float]] = {}
    try:
        with LocalIssuer() as issuer:
            from datetime import timedelta

            def mint(subject: str) -> str:
                lifetime = timedelta(minutes=50)
                return issuer.mint(subject, scope="orders.read", audience="api", lifetime=lifetime)

            token = mint("bench-user")
            cycling = workdir / "tokens.txt"
            cycling.write_text("\n".join(mint(f"user-{n}") for n in range(args.tokens)) + "\n")
            for label, mode, dsn in scenarios:
                best: dict[tuple[str, str], tuple[float, str]] = {}
                processes = {}
                try:
                    kinds = (*SERVERS_IN_ORDER, "floor") if mode == "off" else SERVERS_IN_ORDER
                    for kind in kinds:
                        options = {
                            "issuer": issuer.url,
                            "revocation": mode,
                            "dsn": dsn,
                            "port": free_port(),
                            "workdir": str(workdir),
                        }
                        processes[kind] = (start(kind, options), f"http://127.0.0.1:{options['port']}/api/me")
                        answer = httpx2.get(processes[kind][1], headers={"Authorization": f"Bearer {token}"})
                        assert answer.status_code == 200, (kind, answer.status_code, answer.text)
                        wrk(processes[kind][1], token, 2, args.connections)  # warm-up
                    urls = {kind: url for kind, (_process, url) in processes.items()}
                    urls["bare"] = urls["fw"].replace("/api/me", "/hello")
                    sources = {"repeated": token, "different": cycling, "bare": None}
                    for round_number in range(args.rounds):
                        for kind, which in measurement_order(kinds, round_number):
                            result = wrk(urls[kind], sources[which], args.duration, args.connections)
                            rounds.setdefault((label, kind, which), []).append(result[0])
                            if result[0] > best.get((kind, which), (0.0, ""))[0]:
                                best[(kind, which)] = result
                finally:
                    for kind, (process, _url) in processes.items():
                        process.terminate()
                        try:
                            process.wait(timeout=10)
                        except subprocess.TimeoutExpired:
                            print(f"warning: {kind} did not exit within 10 s of SIGTERM", file=sys.stderr)
                            process.kill()
                            process.wait(timeout=10)
                for which in ("repeated", "different"):
                    rows.append((label, which, [best[(kind, which)] for kind in SERVERS_IN_ORDER]))
                    if ("floor", which) in best:
                        floor_rows.append(
                            (which, best[("floor", which)], best[("fw", which)], best[("fastapi", which)])
                        )
                bare_rows.append(
                    (label, best[("bare", "bare")], best[("fw", "repeated")], best[("fw", "different")])
                )
    finally:
        drop_pg_database(admin, postgres)
    print(
        f"wrk -t1 -c{args.connections} -d{args.duration}s, best of {args.rounds} round-robin rounds, "
        f"one uvicorn process each, {cores.description()}\n"
    )
    head = " | ".join(f"{LABELS[k]} req/s" for k in SERVERS_IN_ORDER)
    print(f"| Scenario | token | {head} | fw / Starlette | fw / FastAPI |")
    print("|---|---|" + "---:|" * (len(SERVERS_IN_ORDER) + 2))
    for label, which, results in rows:
        fw_rps, st_rps, fa_rps = (rps for rps, _ in results)
        cells = " | ".join(f"{rps:,.0f} ({latency})" for rps, latency in results)
        print(f"| {label} | {which} | {cells} | {fw_rps / st_rps:.2f}x | {fw_rps / fa_rps:.2f}x |")
    print("\nfw's bearer request against a bare route of the same App (no token), same run:\n")
    print(
        "| Scenario | bare route req/s | repeated token req/s | cost / bare "
        "| different token req/s | cost / bare |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for label, (bare_rps, _), (same_rps, _), (other_rps, _) in bare_rows:
        print(
            f"| {label} | {bare_rps:,.0f} | {same_rps:,.0f} | {bare_rps / same_rps:.2f}x "
            f"| {other_rps:,.0f} | {bare_rps / other_rps:.2f}x |"
        )

    if floor_rows:
        print(
            "\nThe floor (raw ASGI + the RSA check alone, revocation off) against FastAPI + PyJWT, "
            "and the share of it fw serves:\n"
        )
        print("| token | floor req/s | FastAPI + PyJWT req/s | floor / FastAPI | fw / floor |")
        print("|---|---:|---:|---:|---:|")
        for which, (floor_rps, _), (fw_rps, _), (fa_rps, _) in floor_rows:
            print(
                f"| {which} | {floor_rps:,.0f} | {fa_rps:,.0f} | {floor_rps / fa_rps:.2f}x "
                f"| {fw_rps / floor_rps:.0%} |"
            )
    print(
        f"\nThe targets' ratios taken within each round (the pair measured one right after the other), "
        f"median of {args.rounds} rounds:\n"
    )
    print("| Scenario | repeated token / bare route, time | fw different token / the floor, req/s |")
    print("|---|---:|---:|")
    for label, _mode, _dsn in scenarios:
        bare_ratio = same_round_ratio(rounds[(label, "bare", "bare")], rounds[(label, "fw", "repeated")])
        floor_key = (label, "floor", "different")
        floor_ratio = (
            f"{same_round_ratio(rounds[(label, 'fw', 'different')], rounds[floor_key]):.0%}"
            if floor_key in rounds
            else "(no floor)"
        )
        print(f"| {label} | {bare_ratio:.2f}x | {floor_ratio} |")


if __name__ == "__main__":
    main()
