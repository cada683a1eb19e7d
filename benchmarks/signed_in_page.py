"""The request a browser app serves most, a signed-in page: fw's sessions against their peers.

Every server of ``signed_in_servers.py`` serves ``GET /page`` to a signed-in browser: fw with
its cookie sessions (``oidc_only``, the record sealed with AES-256-GCM) and with its Redis
sessions, Starlette's ``SessionMiddleware`` (a signed cookie), a hand-written Starlette +
``redis.asyncio`` session, and Litestar's client-side and server-side (``RedisStore``)
sessions when Litestar is installed (the ``bench`` extra). The run starts its own
``redis-server`` on a free loopback port (no shared server is touched), signs in once per
server through its ``/login`` and measures with the cookie it got.

Two measures:

* over HTTP (default): one uvicorn process per server on the servers' core, ``wrk --latency``
  on the load core (``cores.py``), ``--rounds`` interleaved rounds (each round runs every server
  once, in turn); the table gives each server's median req/s and p99 latency over the rounds;
* ``--instructions``: CPU instructions per signed-in request, every server called in process
  as an ASGI callable under valgrind's callgrind (``callgrind.py``), collection only around the
  measured requests: figures that do not move with the machine's load. The Redis rows include
  the client's work for one ``GET`` (the server's reply is awaited outside the process).

    .venv/bin/python benchmarks/signed_in_page.py [--duration 8] [--connections 32] [--rounds 3]
    .venv/bin/python benchmarks/signed_in_page.py --instructions [--requests 2000]

To measure another fw tree (its servers and its instruction counts), point ``FW_BENCH_SRC`` at
its ``src`` folder.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = Path(os.environ.get("FW_BENCH_SRC") or HERE.parent / "src")
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(SRC))

import callgrind  # noqa: E402
import cores  # noqa: E402
import wrk  # noqa: E402

SERVERS = HERE / "signed_in_servers.py"
KINDS = ("fw-cookie", "starlette-cookie", "litestar-cookie", "fw-redis", "starlette-redis", "litestar-redis")
LABELS = {
    "fw-cookie": "fw, cookie sessions",
    "starlette-cookie": "Starlette SessionMiddleware",
    "litestar-cookie": "Litestar client-side session",
    "fw-redis": "fw, Redis sessions",
    "starlette-redis": "Starlette + redis.asyncio by hand",
    "litestar-redis": "Litestar server-side session, RedisStore",
}
#: Whom each fw row is measured against (the issue's targets).
PEER = {"fw-cookie": "starlette-cookie", "fw-redis": "starlette-redis"}


def kinds(only: str = "") -> list[str]:
    """Every kind whose name contains ``only``, Litestar's only when it is installed."""
    have_litestar = importlib.util.find_spec("litestar") is not None
    return [k for k in KINDS if only in k and (have_litestar or not k.startswith("litestar"))]


@contextlib.contextmanager
def own_redis(folder: Path) -> Iterator[str]:
    """A throwaway ``redis-server`` on a free loopback port, no persistence; its URL."""
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed (apt-get install -y redis-server)")
    port = wrk.free_port()
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(
        cores.load([*command, "--dir", str(folder)]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


def options(folder: Path, redis_url: str) -> dict[str, Any]:
    """A server's settings; fw's relational store (accounts, unused by the page) migrated once."""
    dsn = f"sqlite:///{folder}/fw.sqlite3"
    if not (folder / "fw.sqlite3").exists():
        from fw.rdb.migrate import upgrade

        asyncio.run(upgrade(dsn))
    return {"port": wrk.free_port(), "workdir": str(folder), "dsn": dsn, "redis_url": redis_url}


def _cookie(set_cookies: list[str]) -> str:
    """The ``Cookie`` header a browser sends back after these ``Set-Cookie`` headers."""
    return "; ".join(header.split(";", 1)[0] for header in set_cookies)


def start(kind: str, settings: dict[str, Any]) -> tuple[subprocess.Popen[bytes], str, str]:
    """The server process, its page's URL and the signed-in cookie its ``/login`` set."""
    import httpx2

    process = subprocess.Popen(
        cores.server([sys.executable, str(SERVERS), kind, json.dumps(settings)]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{settings['port']}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            answer = httpx2.get(f"{base}/login", timeout=2)
            cookie = _cookie(answer.headers.get_list("set-cookie"))
            page = httpx2.get(f"{base}/page", headers={"cookie": cookie}, timeout=2)
            if page.status_code != 200 or page.json()["account_id"] != "bench":
                raise RuntimeError(f"{kind}: the signed-in page answered {page.status_code} {page.text}")
            return process, f"{base}/page", cookie
        except httpx2.HTTPError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{kind} did not start: {process.communicate()[1].decode()[-2000:]}")


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def measure(url: str, cookie: str, duration: int, connections: int) -> tuple[float, float]:
    """Requests/s and p99 latency (ms) of ``GET url`` with ``cookie``; any non-2xx is an error."""
    out = wrk.run(url, duration, connections, ["--latency", "-H", f"Cookie: {cookie}"])
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    return wrk.requests_per_second(out), float(p99.group(1)) * _UNITS[p99.group(2)] if p99 else float("nan")


def over_http(duration: int, connections: int, rounds: int, only: str) -> None:
    wrk.require()
    which = kinds(only)
    results: dict[str, list[tuple[float, float]]] = {kind: [] for kind in which}
    with tempfile.TemporaryDirectory(prefix="fw-signed-in-") as name, own_redis(Path(name)) as redis_url:
        folder = Path(name)
        servers = {}
        try:
            for kind in which:
                servers[kind] = start(kind, options(folder, redis_url))
                measure(servers[kind][1], servers[kind][2], 2, connections)  # warm-up
            for _ in range(rounds):
                for kind in which:
                    results[kind].append(measure(servers[kind][1], servers[kind][2], duration, connections))
        finally:
            for process, _url, _cookie in servers.values():
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
    print(
        f"`GET /page` signed in, wrk -t1 -c{connections} -d{duration}s --latency, median of {rounds} "
        f"interleaved rounds, one uvicorn process each, {cores.description()}\n"
    )
    print("| server | req/s | p99 ms | req/s each round | fw / peer req/s | fw / peer p99 |")
    print("|---|---:|---:|---|---:|---:|")
    median = {
        kind: (statistics.median(r for r, _ in got), statistics.median(p for _, p in got))
        for kind, got in results.items()
    }
    for kind in which:
        rps, p99 = median[kind]
        rounds_text = ", ".join(f"{r:,.0f}" for r, _ in results[kind])
        ratio = ""
        if PEER.get(kind) in median:
            peer_rps, peer_p99 = median[PEER[kind]]
            ratio = f" | {rps / peer_rps:.2f}x | {p99 / peer_p99:.2f}x"
        else:
            ratio = " | | "
        print(f"| {LABELS[kind]} | {rps:,.0f} | {p99:.1f} | {rounds_text}{ratio} |")


async def _lifespan(app: Any) -> tuple[asyncio.Queue[dict[str, Any]], asyncio.Task[None]]:
    """Start ``app``'s lifespan; put ``lifespan.shutdown`` on the queue to end it."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"].startswith("lifespan.startup"):
            if message["type"] != "lifespan.startup.complete":
                raise RuntimeError(f"startup failed: {message}")
            started.set()

    await inbox.put({"type": "lifespan.startup"})
    task = asyncio.ensure_future(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, send)
    )
    await asyncio.wait_for(started.wait(), 30)
    return inbox, task


def count_one(kind: str, requests: int, redis_url: str) -> None:
    """Run ``requests`` signed-in requests of ``kind`` through :func:`callgrind.run_counted`."""
    import signed_in_servers

    folder = Path(tempfile.mkdtemp(prefix="fw-signed-in-"))
    settings = options(folder, redis_url)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app = signed_in_servers.build(kind, settings)
    inbox, task = loop.run_until_complete(_lifespan(app))
    answers: list[tuple[int, list[tuple[bytes, bytes]]]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answers.append((message["status"], list(message.get("headers", []))))

    def scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
        return {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"host", b"127.0.0.1:8000"), (b"accept", b"*/*"), *headers],
            "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000), "state": {},
        }  # fmt: skip

    loop.run_until_complete(app(scope("/login", []), receive, send))
    cookie = _cookie([v.decode("latin-1") for n, v in answers[-1][1] if n == b"set-cookie"])
    page = scope("/page", [(b"cookie", cookie.encode("latin-1"))])

    async def serve(times: int) -> None:
        for _ in range(times):
            await app(dict(page, headers=list(page["headers"]), state={}), receive, send)

    loop.run_until_complete(serve(300))
    callgrind.run_counted(lambda: loop.run_until_complete(serve(1)), requests)
    if {status for status, _ in answers[1:]} != {200}:
        raise RuntimeError(f"{kind} answered { ({status for status, _ in answers[1:]}) }")
    loop.run_until_complete(inbox.put({"type": "lifespan.shutdown"}))
    loop.run_until_complete(task)
    loop.close()
    shutil.rmtree(folder, ignore_errors=True)


def instructions(requests: int, only: str) -> None:
    counted: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="fw-signed-in-") as name, own_redis(Path(name)) as redis_url:
        for kind in kinds(only):
            arguments = [__file__, "--count", kind, "--requests", str(requests), "--redis-url", redis_url]
            counted[kind] = callgrind.instructions_per_call(arguments, requests)
    print(f"Instructions per signed-in `GET /page`, in process (callgrind, {requests} requests):\n")
    print("| server | instructions | fw / peer |")
    print("|---|---:|---:|")
    for kind, value in counted.items():
        ratio = f"{value / counted[PEER[kind]]:.2f}x" if PEER.get(kind) in counted else ""
        print(f"| {LABELS[kind]} | {value:,.0f} | {ratio} |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--instructions", action="store_true", help="count instructions instead (valgrind)")
    parser.add_argument("--requests", type=int, default=2000, help="requests counted per server")
    parser.add_argument("--only", default="", help="run only the servers whose kind contains this text")
    parser.add_argument("--count", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--redis-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count:
        count_one(args.count, args.requests, args.redis_url)
    elif args.instructions:
        instructions(args.requests, args.only)
    else:
        over_http(args.duration, args.connections, args.rounds, args.only)


if __name__ == "__main__":
    main()
