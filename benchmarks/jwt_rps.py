"""End-to-end requests/second of a protected GET with an RS256 bearer token: fw vs FastAPI + PyJWT.

One uvicorn process per server, wrk on 127.0.0.1, one run per scenario:
revocation off; revocation both with max_propagation_delay 0 on SQLite; the same on PostgreSQL
(``FW_BENCH_POSTGRES_DSN``, default the local test server). Prints a Markdown table.

    .venv/bin/python benchmarks/jwt_rps.py [--duration 10] [--connections 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from fw.rdb.migrate import upgrade  # noqa: E402
from fw.testing.issuer import LocalIssuer  # noqa: E402

SERVERS = Path(__file__).with_name("jwt_servers.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(kind: str, options: dict[str, object]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, str(SERVERS), kind, json.dumps(options)],
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


def wrk(url: str, token: str, duration: int, connections: int) -> tuple[float, str]:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "-H", f"Authorization: Bearer {token}", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    latency = re.search(r"Latency\s+(\S+)", out)
    if errors:
        raise RuntimeError(f"{errors.group(1)} failed responses:\n{out}")
    return rps, latency.group(1) if latency else "?"


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--only", default="", help="run only scenarios whose label contains this text")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install -y wrk)")
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
    try:
        with LocalIssuer() as issuer:
            from datetime import timedelta

            token = issuer.mint(
                "bench-user", scope="orders.read", audience="api", lifetime=timedelta(minutes=50)
            )
            for label, mode, dsn in scenarios:
                results = {}
                for kind in ("fw", "fastapi"):
                    options = {
                        "issuer": issuer.url,
                        "revocation": mode,
                        "dsn": dsn,
                        "port": free_port(),
                        "workdir": str(workdir),
                    }
                    process = start(kind, options)
                    try:
                        url = f"http://127.0.0.1:{options['port']}/api/me"
                        answer = httpx2.get(url, headers={"Authorization": f"Bearer {token}"})
                        assert answer.status_code == 200
                        wrk(url, token, 2, args.connections)  # warm-up
                        results[kind] = wrk(url, token, args.duration, args.connections)
                    finally:
                        process.terminate()
                        process.wait(timeout=10)
                rows.append((label, results["fw"], results["fastapi"]))
    finally:
        drop_pg_database(admin, postgres)
    print(
        f"wrk -t1 -c{args.connections} -d{args.duration}s, one uvicorn process each, {os.cpu_count()} cores\n"
    )
    print(
        "| Scenario | fw req/s | fw avg latency | FastAPI + PyJWT req/s "
        "| FastAPI avg latency | fw / FastAPI |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for label, (fw_rps, fw_lat), (fa_rps, fa_lat) in rows:
        print(f"| {label} | {fw_rps:,.0f} | {fw_lat} | {fa_rps:,.0f} | {fa_lat} | {fw_rps / fa_rps:.2f}x |")


if __name__ == "__main__":
    main()
