"""Request binding benchmark: the bind step in process, then end to end over HTTP with wrk.

    .venv/bin/python benchmarks/binding_bench.py [--seconds 8] [--connections 32] [--skip-http]

Peers: FastAPI + pydantic v2, Litestar + msgspec, a Starlette handler validating with msgspec
structs written by hand (the floor the binding target names), and a raw Starlette handler that
parses the JSON and validates nothing (a floor below any validation). Every app runs on one
uvicorn worker on 127.0.0.1 and answers the same request shapes (see ``binding_apps.py``).
Prints markdown tables.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import cores  # noqa: E402
import wrk  # noqa: E402

VALID = {
    "customer": "Ada Lovelace",
    "email": "ada@example.com",
    "priority": "high",
    "code": "ABC-1234",
    "deliverOn": "2026-12-01",
    "quantity": 3,
    "discount": 0.1,
    "gift": True,
    "address": {"street": "1 Main Street", "city": "Paris", "zip": "75001"},
    "items": [{"sku": "SKU00001", "qty": 2}, {"sku": "SKU00002", "qty": 1}],
    "labels": {"channel": "web", "campaign": "winter"},
}
INVALID = {
    **VALID,
    "email": "not-an-email",
    "code": "abc",
    "quantity": 0,
    "items": [{"sku": "short", "qty": 2}],
}
REQUEST_ID = "6f1c2a52-3f0e-4a86-9d3c-2b1d0c9e8f7a"
PATH = "/orgs/acme/orders?dryRun=true"


# In-process bind step ---------------------------------------------------------------------------
def request_scope(body: bytes) -> dict[str, Any]:
    """The ASGI scope every binder starts from: raw query string, raw headers, routed path params."""
    return {
        "type": "http",
        "method": "POST",
        "path": "/orgs/acme/orders",
        "query_string": b"dryRun=true",
        "headers": [
            (b"content-type", b"application/json"),
            (b"x-request-id", REQUEST_ID.encode()),
            (b"content-length", str(len(body)).encode()),
        ],
        "path_params": {"org": "acme"},
    }


def peer_inputs(scope: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """What FastAPI and Litestar do before validating: query string, header and path into one map.

    Uses the stdlib query parser and one pass over the raw headers, the cheapest faithful
    equivalent of the frameworks' own request wrappers, so the peers are not handicapped.
    """
    params: dict[str, Any] = dict(parse_qsl(scope["query_string"].decode("latin-1")))
    params["org"] = scope["path_params"]["org"]
    content_type = ""
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            params["request_id"] = value.decode("latin-1")
        elif name == b"content-type":
            content_type = value.decode("latin-1")
    return params, content_type


def bench_inprocess(iterations: int, rounds: int = 5) -> list[tuple[str, float, float]]:
    """The bind step of each library from the same input to the same output.

    In: an ASGI scope (raw query string, raw header list, path params) and a ``receive``
    callable delivering the raw JSON body bytes. Out: the typed, validated objects (or the
    library's validation error). Every runner is an async loop awaiting ``receive``, so each
    pays the same coroutine overhead; fw additionally builds the Starlette ``Request`` its
    handlers receive.
    """
    import msgspec
    from binding_apps import OrderModel, OrderStruct, ParamsModel, ParamsStruct
    from pydantic import ValidationError
    from starlette.requests import Request

    import fw
    from examples.hello.members import Order

    bodies = {"valid": json.dumps(VALID).encode(), "invalid": json.dumps(INVALID).encode()}

    def runner(bind_one: Callable[[dict[str, Any], Any], Any]) -> Callable[[bytes], Callable[[int], float]]:
        def make(body: bytes) -> Callable[[int], float]:
            message = {"type": "http.request", "body": body, "more_body": False}
            scope = request_scope(body)

            async def receive() -> dict[str, Any]:
                return message

            async def loop(n: int) -> float:
                start = time.perf_counter()
                for _ in range(n):
                    await bind_one(dict(scope), receive)
                return time.perf_counter() - start

            return lambda n: asyncio.run(loop(n))

        return make

    async def fw_bind(scope: dict[str, Any], receive: Any) -> None:
        with contextlib.suppress(fw.BindError):
            await fw.parse(Order, Request(scope, receive))

    async def pydantic_bind(scope: dict[str, Any], receive: Any) -> None:
        body = (await receive())["body"]
        params, content_type = peer_inputs(scope)
        if content_type != "application/json":
            raise AssertionError(content_type)
        with contextlib.suppress(ValidationError):
            ParamsModel.model_validate(params)
            OrderModel.model_validate_json(body)

    order_decoder = msgspec.json.Decoder(OrderStruct)

    async def msgspec_bind(scope: dict[str, Any], receive: Any) -> None:
        body = (await receive())["body"]
        params, content_type = peer_inputs(scope)
        if content_type != "application/json":
            raise AssertionError(content_type)
        with contextlib.suppress(msgspec.ValidationError):
            msgspec.convert(params, ParamsStruct, strict=False)
            order_decoder.decode(body)

    rows = []
    runners = [
        ("fw (generated binder)", runner(fw_bind)),
        ("pydantic v2 model_validate_json", runner(pydantic_bind)),
        ("msgspec decode + convert", runner(msgspec_bind)),
    ]
    prepared = {(name, variant): make(bodies[variant]) for name, make in runners for variant in bodies}
    best: dict[tuple[str, str], float] = {}
    for run in prepared.values():
        run(iterations // 10)
    for _ in range(rounds):  # many short round-robin rounds: a busy neighbour slows every binder alike
        for key, run in prepared.items():
            best[key] = min(best.get(key, float("inf")), run(iterations) / iterations * 1e6)
    for name, _ in runners:
        rows.append((name, best[(name, "valid")], best[(name, "invalid")]))
    return rows


# In-process ASGI round trip ----------------------------------------------------------------------
def bench_asgi(iterations: int, rounds: int) -> list[tuple[str, float, float, tuple[int, int]]]:
    """Each whole app called as an ASGI callable in process: routing, binding, response; no network.

    The unbound twins (same route, same answer, nothing bound) are measured too, as rows labelled
    ``<app> unbound``. Apps are measured round-robin and the fastest round of each counts, so a
    busy neighbour on a shared machine does not penalise one app only.
    """
    import binding_apps

    apps = {label: getattr(binding_apps, attribute) for label, attribute in APPS}
    apps.update({f"{label} unbound": getattr(binding_apps, attribute) for label, attribute in UNBOUND_APPS})
    bodies = [json.dumps(VALID).encode(), json.dumps(INVALID).encode()]
    best: dict[tuple[str, int], float] = {}
    statuses: dict[tuple[str, int], int] = {}

    def scope_for(body: bytes) -> dict[str, Any]:
        return {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "scheme": "http", "path": "/orgs/acme/orders", "raw_path": b"/orgs/acme/orders",
            "query_string": b"dryRun=true", "root_path": "", "client": ("127.0.0.1", 5000),
            "server": ("127.0.0.1", 8000),
            "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()), (b"x-request-id", REQUEST_ID.encode())],
        }  # fmt: skip

    async def measure(app: Any, body: bytes, n: int) -> tuple[float, int]:
        message = {"type": "http.request", "body": body, "more_body": False}
        scope = scope_for(body)
        status = [0]

        async def receive() -> dict[str, Any]:
            return message

        async def send(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start":
                status[0] = event["status"]

        start = time.perf_counter()
        for _ in range(n):
            await app(dict(scope), receive, send)
        return time.perf_counter() - start, status[0]

    async def run_all() -> None:
        for app in apps.values():
            for body in bodies:
                await measure(app, body, iterations // 10)
        for _ in range(rounds):
            for label, app in apps.items():
                for index, body in enumerate(bodies):
                    elapsed, status = await measure(app, body, iterations)
                    key = (label, index)
                    best[key] = min(best.get(key, float("inf")), elapsed / iterations * 1e6)
                    statuses[key] = status

    asyncio.run(run_all())
    return [
        (label, best[(label, 0)], best[(label, 1)], (statuses[(label, 0)], statuses[(label, 1)]))
        for label in apps
    ]


# End to end -------------------------------------------------------------------------------------
APPS = [("fw", "fw_app"), ("FastAPI + pydantic v2", "fastapi_app"), ("Litestar + msgspec", "litestar_app"),
        ("Starlette + msgspec by hand", "starlette_msgspec_app"),
        ("raw Starlette (no validation)", "starlette_app")]  # fmt: skip
UNBOUND_APPS = [("fw", "fw_unbound_app"), ("FastAPI + pydantic v2", "fastapi_unbound_app"),
                ("Litestar + msgspec", "litestar_unbound_app")]  # fmt: skip


def lua_script(body: dict[str, Any], folder: Path, name: str) -> Path:
    path = folder / f"{name}.lua"
    path.write_text(
        'wrk.method = "POST"\n'
        f"wrk.body = {json.dumps(json.dumps(body))}\n"
        'wrk.headers["Content-Type"] = "application/json"\n'
        f'wrk.headers["X-Request-Id"] = "{REQUEST_ID}"\n'
    )
    return path


def run_wrk(port: int, script: Path, seconds: int, connections: int) -> tuple[float, str]:
    url = f"http://127.0.0.1:{port}{PATH}"
    output = subprocess.run(
        cores.load(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), url]),
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.MULTILINE)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return rps, f"{p50.group(1) if p50 else '?'}" + (f" ({non2xx.group(1)} non-2xx)" if non2xx else "")


def check_answers(port: int) -> tuple[int, int]:
    import httpx2

    url = f"http://127.0.0.1:{port}{PATH}"
    headers = {"X-Request-Id": REQUEST_ID}
    good = httpx2.post(url, json=VALID, headers=headers)
    bad = httpx2.post(url, json=INVALID, headers=headers)
    return good.status_code, bad.status_code


def bench_http(
    seconds: int, connections: int, rounds: int
) -> list[tuple[str, float, str, float, str, tuple[int, int]]]:
    """All servers up at once, measured round-robin; the best round of each counts.

    Round-robin keeps a busy neighbour on a shared machine from penalising one app only.
    """
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install -y wrk)")
    best: dict[str, list[Any]] = {}
    servers: list[tuple[str, int, subprocess.Popen[bytes]]] = []
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'benchmarks'}"}
    with tempfile.TemporaryDirectory() as folder:
        valid = lua_script(VALID, Path(folder), "valid")
        invalid = lua_script(INVALID, Path(folder), "invalid")
        try:
            for label, attribute in APPS:
                port = wrk.free_port()
                command = [sys.executable, "-m", "uvicorn", f"binding_apps:{attribute}"]
                command += ["--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
                command += ["--log-level", "warning", "--no-access-log"]
                process = subprocess.Popen(
                    cores.server(command),
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                servers.append((label, port, process))
            for label, port, _ in servers:
                wrk.wait(port, 20)
                best[label] = [0.0, "", 0.0, "", check_answers(port)]
                run_wrk(port, valid, 2, connections)
            for _ in range(rounds):
                for label, port, _ in servers:
                    ok_rps, ok_p50 = run_wrk(port, valid, seconds, connections)
                    bad_rps, bad_p50 = run_wrk(port, invalid, seconds, connections)
                    row = best[label]
                    if ok_rps > row[0]:
                        row[0], row[1] = ok_rps, ok_p50
                    if bad_rps > row[2]:
                        row[2], row[3] = bad_rps, bad_p50
        finally:
            for _, _, process in servers:
                process.terminate()
                process.wait(timeout=10)
    return [(label, *best[label]) for label, _ in APPS]  # type: ignore[misc]


def main() -> None:
    import logging

    logging.disable(logging.INFO)  # peers' and libraries' INFO records would garble the tables
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-http", action="store_true")
    args = parser.parse_args()

    print("### Bind step, in process (µs per request, lower is better)\n")
    print("| binder | valid | invalid |")
    print("|---|---:|---:|")
    for name, valid_us, invalid_us in bench_inprocess(args.iterations // 4, rounds=20):
        print(f"| {name} | {valid_us:.1f} | {invalid_us:.1f} |")
    print("\n### Whole app in process: one ASGI call per request, no network (µs per request)\n")
    print("| app | valid | invalid | statuses (valid, invalid) |")
    print("|---|---:|---:|---|")
    asgi = bench_asgi(args.iterations // 4, args.rounds + 2)
    for label, valid_us, invalid_us, codes in asgi:
        print(f"| {label} | {valid_us:.1f} | {invalid_us:.1f} | {codes[0]}, {codes[1]} |")
    print("\n### Binding inside each framework: bound app minus its unbound twin (µs per request)\n")
    print("| framework | valid | invalid |")
    print("|---|---:|---:|")
    timings = {label: (valid_us, invalid_us) for label, valid_us, invalid_us, _ in asgi}
    for label, _ in UNBOUND_APPS:
        (valid_us, invalid_us), (valid_floor, invalid_floor) = timings[label], timings[f"{label} unbound"]
        print(f"| {label} | {valid_us - valid_floor:.1f} | {invalid_us - invalid_floor:.1f} |")
    if args.skip_http:
        return
    print(
        f"\n### End to end: one uvicorn worker each, wrk -t1 -c{args.connections} -d{args.seconds}s, "
        f"best of {args.rounds} round-robin rounds, {cores.description()} (requests/s)\n"
    )
    print("| app | valid req/s | p50 | invalid req/s | p50 | statuses (valid, invalid) |")
    print("|---|---:|---:|---:|---:|---|")
    rows = bench_http(args.seconds, args.connections, args.rounds)
    for label, ok_rps, ok_p50, bad_rps, bad_p50, statuses in rows:
        codes = f"{statuses[0]}, {statuses[1]}"
        print(f"| {label} | {ok_rps:,.0f} | {ok_p50} | {bad_rps:,.0f} | {bad_p50} | {codes} |")
    by_label = {row[0]: row for row in rows}
    fw_row = by_label["fw"]
    print()
    for peer in ("Starlette + msgspec by hand", "raw Starlette (no validation)"):
        row = by_label[peer]
        print(f"fw is {fw_row[1] / row[1]:.0%} (valid) and {fw_row[3] / row[3]:.0%} (invalid) of {peer}.")


if __name__ == "__main__":
    main()
