"""A repeated token against a bare route of the same fw App over HTTP, over several server launches.

``jwt_rps.py`` measures every server in one launch each; this script measures fw alone, starting
its server several times, because the ratio of a repeated token to a bare route moves more
between two launches of the same server than between two rounds of one launch. Each launch
runs ``--rounds`` round-robin wrk rounds of the bare route and the repeated token (and, with
``--different``, a different token on every request) and prints its best of each and their
ratio. The App, its configuration and the pinning are ``jwt_rps.py``'s (``jwt_servers.fw_app``,
revocation off, ``cores.py``).

    .venv/bin/python benchmarks/bearer_launches.py [--launches 3] [--rounds 3] [--duration 4]

To measure another fw tree, put its ``src`` folder first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from datetime import timedelta
from pathlib import Path

from jwt_rps import free_port, start, wrk

from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=4)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--different", action="store_true", help="also a different token per request")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="fw-bench-"))
    dsn = f"sqlite:///{workdir / 'bench.sqlite3'}"
    asyncio.run(upgrade(dsn))
    with LocalIssuer() as issuer:
        lifetime = timedelta(minutes=50)
        token = issuer.mint("bench-user", scope="orders.read", audience="api", lifetime=lifetime)
        cycling = workdir / "tokens.txt"
        minted = (
            issuer.mint(f"user-{n}", scope="orders.read", audience="api", lifetime=lifetime)
            for n in range(6000)
        )
        cycling.write_text("\n".join(minted) + "\n")
        loads: list[tuple[str, str | Path | None]] = [("bare route", None), ("repeated token", token)]
        if args.different:
            loads.append(("different token", cycling))
        print(f"wrk -t1 -c{args.connections} -d{args.duration}s, best of {args.rounds} rounds per launch\n")
        print("| launch | " + " | ".join(f"{label} req/s" for label, _ in loads) + " | repeated / bare |")
        print("|---|" + "---:|" * (len(loads) + 1))
        for launch in range(1, args.launches + 1):
            port = free_port()
            options = {
                "issuer": issuer.url,
                "revocation": "off",
                "dsn": dsn,
                "port": port,
                "workdir": str(workdir),
            }
            server = start("fw", options)
            try:
                url = f"http://127.0.0.1:{port}/api/me"
                wrk(url, token, 2, args.connections)  # warm-up: the token is verified twice, then cached
                best = dict.fromkeys((label for label, _ in loads), 0.0)
                for _ in range(args.rounds):
                    for label, load in loads:
                        target = url if load is not None else url.replace("/api/me", "/hello")
                        best[label] = max(best[label], wrk(target, load, args.duration, args.connections)[0])
            finally:
                server.terminate()
                server.wait()
            cells = " | ".join(f"{best[label]:,.0f}" for label, _ in loads)
            print(f"| {launch} | {cells} | {best['bare route'] / best['repeated token']:.2f}x |")


if __name__ == "__main__":
    main()
