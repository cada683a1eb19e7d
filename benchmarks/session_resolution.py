"""Browser-session overhead per request: resolving the ``fw_session`` cookie in each backend.

    .venv/bin/python benchmarks/session_resolution.py [--requests 3000]
        [--redis redis://127.0.0.1:6379/15] [--postgres postgresql://postgres@127.0.0.1:5432/test]
        [--only dynamo,firestore]

Each App is configured the way an application is (TOML and environment layers through
``fw.testing.configured``), so the real ``extension_for`` path composes ``oidc_only`` with the
session backend under test. The App is called in process (ASGI, no HTTP) with a signed-in
cookie and the median time of one request is reported against the same App answering an
anonymous request (the floor). The account re-read is outside the measurement window (it
happens at most once per 30 s per account). A backend whose server is not running is reported
as skipped. ``--postgres`` defaults to ``FW_TEST_POSTGRES_DSN``, ``--redis`` to
``FW_TEST_REDIS_URL``. DynamoDB is a moto server and Firestore (Datastore mode) Google's
emulator, each started on a free loopback port for the run (tests/local_servers.py) and stopped
after it; with ``dynamo`` or ``firestore`` as ``session.backend`` the auth records live there too,
as they would in a deployment without a relational database. Both are local stand-ins written
for correctness, not speed: their figures bound fw's own overhead from above and say nothing of
the managed services' latency.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from typing import Any

import httpx2
from auth_oidc.support import layers, login_extension, make_app, session_settings
from backends import StoreBackend
from local_servers import firestore_emulator, moto_server

from fw.auth import accounts
from fw.auth.sessions import SessionSummary
from fw.auth.stores.dynamo import create_table
from fw.auth.stores.engines.dynamo import DynamoSettings
from fw.auth.stores.engines.firestore import FirestoreSettings
from fw.auth.stores.select import middleware_settings
from fw.rdb.migrate import upgrade
from fw.testing import configured

#: Never contacted: discovery is lazy, and no request here goes to the provider.
ISSUER = "http://127.0.0.1:9"


async def measure(session: dict[str, Any], store: StoreBackend | str, requests: int) -> tuple[float, float]:
    # The App starts inside the block it is built in: it keeps the configuration it started under.
    with configured(**layers(ISSUER, store, session=session)):
        app = make_app()
        extension = login_extension(app)
        await app.startup()
        try:
            summary = SessionSummary("bench", "Bench", "b@example.test", "http://127.0.0.1:9", "bench", None)
            value = await extension.sessions.start(summary)
            accounts.set_account_lookup(lambda account_id: accounts.Account(account_id, "Bench", "b@x.test"))
            extension.accounts.mark_read("bench", time.monotonic() + 10**6)
            transport = httpx2.ASGITransport(app=app)
            async with httpx2.AsyncClient(transport=transport, base_url="http://localhost:8000") as client:
                timings: dict[str, list[float]] = {"anonymous": [], "signed_in": []}
                for _ in range(requests):
                    for kind, cookies in (("anonymous", {}), ("signed_in", {"fw_session": value})):
                        client.cookies.clear()
                        client.cookies.update(cookies)
                        start = time.perf_counter()
                        response = await client.get("/me")
                        timings[kind].append(time.perf_counter() - start)
                        assert response.json()["signed_in"] is (kind == "signed_in")
            return statistics.median(timings["anonymous"]) * 1e6, statistics.median(
                timings["signed_in"]
            ) * 1e6
        finally:
            await app.shutdown()


def conditions() -> str:
    """The machine as the run found it: the figures mean little without it."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return f"{os.cpu_count()} CPUs, load average {load} (1, 5, 15 min) at the start"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--redis", default=os.environ.get("FW_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
    parser.add_argument(
        "--postgres",
        default=os.environ.get("FW_TEST_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    parser.add_argument("--only", default="", help="comma-separated backends: cookie,redis,sqlite,...")
    args = parser.parse_args()
    only = {name for name in args.only.split(",") if name}
    print(f"<!-- {conditions()}; {args.requests} requests per kind -->")
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as servers:
        sqlite = f"sqlite:///{folder}/bench.sqlite3"
        await upgrade(sqlite)

        async def dynamo() -> StoreBackend:
            settings = DynamoSettings("us-east-1", servers.enter_context(moto_server()), "fw_bench_")
            await create_table(settings)
            return StoreBackend("dynamo", "dynamo", middleware_settings(dynamo=settings))

        async def firestore() -> StoreBackend:
            host = servers.enter_context(firestore_emulator(Path(folder)))
            settings = FirestoreSettings("fw-bench", "bench", host)
            return StoreBackend("firestore", "firestore", middleware_settings(firestore=settings))

        async def postgres() -> str:
            await upgrade(args.postgres)
            return str(args.postgres)

        async def at(value: str) -> str:
            return value

        cookie_secret = secrets.token_urlsafe(32)
        backends = {
            "cookie": ("cookie (AES-GCM)", session_settings("cookie", secret=cookie_secret), at(sqlite)),
            "redis": ("redis", session_settings("redis", redis_url=args.redis), at(sqlite)),
            "sqlite": ("rdb on SQLite", session_settings("rdb"), at(sqlite)),
            "postgres": ("rdb on PostgreSQL", session_settings("rdb"), postgres()),
            "dynamo": ("dynamo (moto server)", session_settings("dynamo"), dynamo()),
            "firestore": ("firestore (emulator, Datastore mode)", session_settings("firestore"), firestore()),
        }
        print("| session backend | anonymous request | signed-in request | session overhead |")
        print("|---|---|---|---|")
        for key, (name, session, opening) in backends.items():
            if only and key not in only:
                opening.close()
                continue
            try:
                store = await opening
                anonymous, signed_in = await measure(session, store, args.requests)
            except Exception as error:  # a backend whose server is missing is reported, not fatal
                print(f"| {name} | skipped: {type(error).__name__} | | |")
                continue
            print(f"| {name} | {anonymous:.0f} µs | {signed_in:.0f} µs | {signed_in - anonymous:.0f} µs |")


if __name__ == "__main__":
    asyncio.run(main())
