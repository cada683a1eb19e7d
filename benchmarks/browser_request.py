"""What a request of a browser-mode App costs in process, anonymous and signed in, in instructions.

An ``oidc_only`` App configured the way an application is (``fw.testing.configured`` with the
TOML and environment layers of ``tests/auth_oidc/support.py``), sessions in the sealed cookie
(no store read, so what is counted is fw's own path), ``GET /me`` called as an ASGI callable:
once without a cookie (anonymous) and once with a signed-in ``fw_session`` cookie (the account
re-read kept outside the window, as in ``session_resolution.py``). Each kind runs in its own
process under valgrind's callgrind, collection only around the measured requests
(``callgrind.py``): instructions do not move with the machine's load, so two trees compare
exactly. ``FW_BENCH_SRC`` points at another tree's ``src`` (its ``tests`` beside it).

    .venv/bin/python benchmarks/browser_request.py [--requests 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = Path(os.environ.get("FW_BENCH_SRC") or HERE.parent / "src")
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(SRC.parent / "tests"))
sys.path.insert(0, str(SRC))

import callgrind  # noqa: E402

KINDS = ("anonymous", "signed in")


def count_one(kind: str, requests: int) -> None:
    """Run ``requests`` requests of ``kind`` through :func:`callgrind.run_counted`."""
    from auth_oidc.support import layers, login_extension, make_app, session_settings

    from fw.auth import accounts
    from fw.auth.sessions import SessionSummary
    from fw.rdb.migrate import upgrade
    from fw.testing import configured

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    statuses: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    loop = asyncio.new_event_loop()
    with tempfile.TemporaryDirectory() as folder:
        sqlite = f"sqlite:///{folder}/bench.sqlite3"
        loop.run_until_complete(upgrade(sqlite))
        session = session_settings("cookie", secret=secrets.token_urlsafe(32))
        with configured(**layers("http://127.0.0.1:9", sqlite, session=session)):
            app = make_app()
            extension = login_extension(app)
        loop.run_until_complete(app.startup())
        summary = SessionSummary("bench", "Bench", "b@example.test", "http://127.0.0.1:9", "bench", None)
        value = loop.run_until_complete(extension.sessions.start(summary))
        accounts.set_account_lookup(lambda account_id: accounts.Account(account_id, "Bench", "b@x.test"))
        extension.accounts.mark_read("bench", time.monotonic() + 10**6)
        headers = [(b"host", b"localhost:8000"), (b"accept", b"*/*")]
        if kind == "signed in":
            headers.append((b"cookie", f"fw_session={value}".encode()))
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
            "scheme": "http", "path": "/me", "raw_path": b"/me", "query_string": b"", "root_path": "",
            "headers": headers, "client": ("127.0.0.1", 5000), "server": ("localhost", 8000),
        }  # fmt: skip

        async def serve(times: int) -> None:
            for _ in range(times):
                await app(dict(scope), receive, send)

        loop.run_until_complete(serve(200))
        callgrind.run_counted(lambda: loop.run_until_complete(serve(1)), requests)
        loop.run_until_complete(app.shutdown())
    loop.close()
    if set(statuses) != {200}:
        raise RuntimeError(f"{kind} answered {set(statuses)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--count", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count:
        count_one(args.count, args.requests)
        return
    print(f"Instructions per `GET /me` of an oidc_only App (callgrind, {args.requests} requests):\n")
    print("| request | instructions |")
    print("|---|---:|")
    for kind in KINDS:
        arguments = [__file__, "--count", kind, "--requests", str(args.requests)]
        print(f"| {kind} | {callgrind.instructions_per_call(arguments, args.requests):,.0f} |")


if __name__ == "__main__":
    main()
