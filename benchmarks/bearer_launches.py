"""A repeated token against a bare route of the same fw App over HTTP, over several server launches.

``jwt_rps.py`` measures every server in one launch each; this script measures fw alone, starting
its server several times, because the ratio of a repeated token to a bare route moves more
between two launches of the same server than between two rounds of one launch. Each launch
runs ``--rounds`` round-robin wrk rounds of the bare route and the repeated token (and, with
``--different``, a different token on every request) and prints its best of each and their
ratio. With ``--header-control`` each launch also measures the bare route sent an
``Authorization`` header of another scheme, as long as the token (fw lets other schemes
through untouched): what the longer request alone costs, apart from fw's bearer code. The App,
its configuration and the pinning are ``jwt_rps.py``'s (``jwt_servers.fw_app``, revocation off,
``cores.py``).

    .venv/bin/python benchmarks/bearer_launches.py [--launches 3] [--rounds 3] [--duration 4]
        [--different] [--header-control]

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

#: The control row of ``--header-control``.
CONTROL = "bare route, other-scheme header"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=4)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--different", action="store_true", help="also a different token per request")
    parser.add_argument(
        "--header-control",
        action="store_true",
        help="also the bare route with an Authorization header of another scheme, as long as the token",
    )
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
        # (label, path, what wrk sends: nothing, one token or a file of them, the header's scheme)
        loads: list[tuple[str, str, str | Path | None, str]] = [
            ("bare route", "/hello", None, "Bearer"),
            ("repeated token", "/api/me", token, "Bearer"),
        ]
        if args.header_control:
            loads.insert(1, (CONTROL, "/hello", token, "Other"))
        if args.different:
            loads.append(("different token", "/api/me", cycling, "Bearer"))
        print(f"wrk -t1 -c{args.connections} -d{args.duration}s, best of {args.rounds} rounds per launch\n")
        ratios = ["repeated / bare"] + (["header / bare"] if args.header_control else [])
        columns = [f"{load[0]} req/s" for load in loads] + ratios
        print("| launch | " + " | ".join(columns) + " |")
        print("|---|" + "---:|" * (len(loads) + len(ratios)))
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
                base = f"http://127.0.0.1:{port}"
                wrk(f"{base}/api/me", token, 2, args.connections)  # warm-up: verified twice, then cached
                best = dict.fromkeys((load[0] for load in loads), 0.0)
                for _ in range(args.rounds):
                    for label, path, load, scheme in loads:
                        rate = wrk(base + path, load, args.duration, args.connections, scheme)[0]
                        best[label] = max(best[label], rate)
            finally:
                server.terminate()
                server.wait()
            cells = " | ".join(f"{best[load[0]]:,.0f}" for load in loads)
            bare = best["bare route"]
            shares = [f"{bare / best['repeated token']:.2f}x"]
            if args.header_control:
                shares.append(f"{bare / best[CONTROL]:.2f}x")
            print(f"| {launch} | {cells} | {' | '.join(shares)} |")


if __name__ == "__main__":
    main()
