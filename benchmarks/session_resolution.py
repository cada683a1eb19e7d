"""Browser-session overhead per request: resolving the ``fw_session`` cookie in each backend.

    .venv/bin/python benchmarks/session_resolution.py [--requests 3000]
        [--redis redis://127.0.0.1:6379/15] [--postgres postgresql://postgres@127.0.0.1:5432/test]

Each App is configured the way an application is (TOML and environment layers through
``fw.testing.configured``), so the real ``extension_for`` path composes ``oidc_only`` with the
session backend under test. The App is called in process (ASGI, no HTTP) with a signed-in
cookie and the median time of one request is reported against the same App answering an
anonymous request (the floor). The account re-read is outside the measurement window (it
happens at most once per 30 s per account). A backend whose server is not running is reported
as skipped. ``--postgres`` defaults to ``FW_TEST_POSTGRES_DSN``, ``--redis`` to
``FW_TEST_REDIS_URL``.
"""

from __future__ import annotations

import argparse
import asyncio
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

from fw.auth import accounts
from fw.auth.sessions import SessionSummary
from fw.rdb.migrate import upgrade
from fw.testing import configured

#: Never contacted: discovery is lazy, and no request here goes to the provider.
ISSUER = "http://127.0.0.1:9"


async def measure(session: dict[str, Any], dsn: str, requests: int) -> tuple[float, float]:
    with configured(**layers(ISSUER, dsn, session=session)):
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
        return statistics.median(timings["anonymous"]) * 1e6, statistics.median(timings["signed_in"]) * 1e6
    finally:
        await app.shutdown()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--redis", default=os.environ.get("FW_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))
    parser.add_argument(
        "--postgres",
        default=os.environ.get("FW_TEST_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        sqlite = f"sqlite:///{folder}/bench.sqlite3"
        await upgrade(sqlite)
        backends = {
            "cookie (AES-GCM)": (session_settings("cookie", secret=secrets.token_urlsafe(32)), sqlite),
            "redis": (session_settings("redis", redis_url=args.redis), sqlite),
            "rdb on SQLite": (session_settings("rdb"), sqlite),
            "rdb on PostgreSQL": (session_settings("rdb"), args.postgres),
        }
        print("| session backend | anonymous request | signed-in request | session overhead |")
        print("|---|---|---|---|")
        for name, (session, dsn) in backends.items():
            try:
                if dsn != sqlite:
                    await upgrade(dsn)
                anonymous, signed_in = await measure(session, dsn, args.requests)
            except Exception as error:  # a backend that is not running is reported, not fatal
                print(f"| {name} | skipped: {type(error).__name__} | | |")
                continue
            print(f"| {name} | {anonymous:.0f} µs | {signed_in:.0f} µs | {signed_in - anonymous:.0f} µs |")


if __name__ == "__main__":
    asyncio.run(main())
