"""Browser-session overhead per request: resolving the ``fw_session`` cookie in each backend.

    .venv/bin/python benchmarks/session_resolution.py [--requests 3000] [--redis redis://127.0.0.1:6379/15]

Calls the App in process (ASGI, no network) with a signed-in cookie and reports the median time
of one request, against the same App answering an anonymous request (the floor). The account
re-read is outside the measurement window (it happens at most once per 30 s per account).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import httpx
from auth_oidc.support import auth_settings, make_app, oidc_settings, session_settings

from fw.auth import accounts
from fw.auth.modes.oidc_only import BrowserLoginSettings, OidcOnly
from fw.auth.sessions import SessionSummary
from fw.rdb.migrate import upgrade
from fw.settings import RdbSettings, SessionSettings


async def measure(session: SessionSettings, dsn: str, requests: int) -> tuple[float, float]:
    settings = BrowserLoginSettings(
        auth_settings(oidc_settings(None, issuer="http://127.0.0.1:9", allow_loopback_http=True)),
        session,
        RdbSettings(dsn),
    )
    extension = OidcOnly(settings)
    app = make_app(extension)
    await app.startup()
    try:
        summary = SessionSummary("bench", "Bench", "b@example.test", "http://127.0.0.1:9", "bench", None)
        value = await extension.sessions.start(summary)
        accounts.set_account_lookup(lambda account_id: accounts.Account(account_id, "Bench", "b@x.test"))
        accounts.mark_read("bench", time.monotonic() + 10**6)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost:8000") as client:
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
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        dsn = f"sqlite:///{folder}/bench.sqlite3"
        await upgrade(dsn)
        backends = {
            "rdb (SQLite)": session_settings("rdb"),
            "cookie (AES-GCM)": session_settings("cookie", secret=secrets.token_urlsafe(32)),
            "redis": session_settings("redis", redis_url=args.redis),
        }
        print("| session backend | anonymous request | signed-in request | session overhead |")
        print("|---|---|---|---|")
        for name, session in backends.items():
            try:
                anonymous, signed_in = await measure(session, dsn, args.requests)
            except Exception as error:  # a backend that is not running is reported, not fatal
                print(f"| {name} | skipped: {type(error).__name__} | | |")
                continue
            print(f"| {name} | {anonymous:.0f} µs | {signed_in:.0f} µs | {signed_in - anonymous:.0f} µs |")


if __name__ == "__main__":
    asyncio.run(main())
