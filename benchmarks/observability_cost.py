"""What metrics and tracing cost per request: fw with both off and on, beside the usual
hand-wired instrumentation of a Starlette app doing the same work.

Same requests on each side, each in a plain and an instrumented variant:

* a bare route (``GET /hello``, nothing read from the request);
* a bearer request (``GET /api/me`` with one valid RS256 access token, repeated: fw serves it
  from its verified-token cache, as in ``bearer_path.py``; the Starlette app verifies it with
  joserfc each time, as ``jwt_servers.serve_starlette`` does).

fw's instrumented variant is the same App with ``[observability.metrics] enabled`` and
``[observability.tracing] enabled`` (``sample_ratio`` 1.0: every request traced). Starlette's is
``opentelemetry-instrumentation-asgi``'s ``OpenTelemetryMiddleware`` outermost and a
``prometheus-client`` middleware counting requests and timing them by route template (the
pattern of starlette-exporter and of most hand-written ones). Both sides export spans through
a ``BatchSpanProcessor`` to an exporter that drops them, so what is measured is the framework's
own work per request, not a collector's.

The figures: µs per request in process (each app called as an ASGI callable, best of
interleaved rounds), and with ``--http`` requests/s under uvicorn (one worker each, wrk,
best of round-robin rounds; servers and wrk on cores of their own, see ``cores.py``). The
column that matters is "added": what turning the instrumentation on adds per request. The goal
(issue 36) is fw's addition at most half of Starlette's.

With both off, fw's figures must be those of ``bare_route.py`` and ``bearer_path.py``: measure
the tree before the change the same way with ``FW_BENCH_SRC`` (see ``bare_route.py``).

    .venv/bin/python benchmarks/observability_cost.py [--rounds 200] [--iterations 100]
        [--http] [--seconds 8] [--http-rounds 3]

Needs ``pip install -e '.[bench,metrics,otel]'`` (opentelemetry-instrumentation-asgi and
prometheus-client are in the bench extra).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, os.environ.get("FW_BENCH_SRC") or str(HERE.parent / "src"))

import cores  # noqa: E402
import wrk  # noqa: E402
from jwt_config import jwt_only_toml  # noqa: E402

ANSWER = {"hello": "world"}
REQUESTS = ("bare route", "bearer, repeated token")
PATHS = {"bare route": "/hello", "bearer, repeated token": "/api/me"}
VARIANTS = ("fw", "fw + metrics + tracing", "Starlette", "Starlette + OTel ASGI + prometheus middleware")
_BASE: dict[str, Any] = {
    "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
    "scheme": "http", "query_string": b"", "root_path": "", "client": ("127.0.0.1", 5000),
    "server": ("127.0.0.1", 8000),
}  # fmt: skip


def _discarding_exporter() -> Any:
    """A span exporter that drops what it is handed: both sides pay for spans, not for a collector."""
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Discard(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    return Discard()


# ---------------------------------------------------------------------------------------------
# The apps


def fw_toml(issuer: str, dsn: str, instrumented: bool) -> str:
    observability = (
        """
[observability.metrics]
enabled = true

[observability.tracing]
enabled = true
service_name = "bench"
sample_ratio = "1.0"
"""
        if instrumented
        else ""
    )
    scopes = 'required_scopes = ["orders.read"]\n'
    return jwt_only_toml(issuer, jwt=scopes) + f'\n[middleware.rdb]\ndsn = "{dsn}"\n' + observability


def fw_app(issuer: str, dsn: str, instrumented: bool) -> Any:
    """The jwt_only App of ``bearer_path.py`` (a bare route beside ``/api/me``), its configuration
    in place; build and start it inside :func:`fw_configured`."""
    import jwt_servers

    return jwt_servers.bearer_app(ANSWER)


@contextlib.contextmanager
def fw_configured(issuer: str, dsn: str, instrumented: bool) -> Iterator[None]:
    """fw's configuration for one variant while the block runs (the App keeps what it started with);
    spans of the instrumented variant go to the discarding exporter."""
    from fw.operations import tracing
    from fw.testing import configured

    with contextlib.ExitStack() as stack:
        stack.enter_context(configured(toml=fw_toml(issuer, dsn, instrumented)))
        if instrumented:
            stack.enter_context(tracing.exporting_to(_discarding_exporter()))
        yield


def starlette_app(issuer: str, instrumented: bool) -> Any:
    """Starlette doing the same: the bare route, and the bearer checks of ``jwt_servers.serve_starlette``
    (keys fetched here, once); instrumented as a Starlette user wires it by hand."""
    import httpx2
    import jwt_servers
    from joserfc.jwk import KeySet
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    meta = httpx2.get(f"{issuer}/.well-known/openid-configuration").json()
    keys = [KeySet.import_key_set(httpx2.get(meta["jwks_uri"]).json())]
    claims_of, unauthorized = jwt_servers.joserfc_checks(issuer, keys)

    async def hello(request: Request) -> JSONResponse:
        return JSONResponse(ANSWER)

    async def me(request: Request) -> Response:
        claims = claims_of(request)
        if claims is None:
            return unauthorized
        return JSONResponse({"sub": claims["sub"]})

    app: Any = Starlette(
        routes=[Route("/hello", hello, methods=["GET"]), Route("/api/me", me, methods=["GET"])]
    )
    if not instrumented:
        return app
    return _otel(_prometheus(app))


def _prometheus(app: Any) -> Any:
    """The usual prometheus-client middleware: a counter and a histogram by method, route template
    and status, the template taken from the route Starlette matched."""
    from prometheus_client import CollectorRegistry, Counter, Histogram

    registry = CollectorRegistry()
    requests = Counter("http_requests", "Requests", ["method", "route", "status"], registry=registry)
    durations = Histogram(
        "http_request_duration_seconds", "Durations", ["method", "route"], registry=registry
    )

    async def middleware(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def observed(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await app(scope, receive, observed)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            requests.labels(scope["method"], template, str(status)).inc()
            durations.labels(scope["method"], template).observe(time.perf_counter() - started)

    return middleware


def _otel(app: Any) -> Any:
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "bench"}))
    provider.add_span_processor(BatchSpanProcessor(_discarding_exporter()))
    return OpenTelemetryMiddleware(app, tracer_provider=provider)


# ---------------------------------------------------------------------------------------------
# In process


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


def _scope(path: str, token: str | None) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"wrk"), (b"accept", b"*/*")]
    if token is not None:
        headers.append((b"authorization", b"Bearer " + token.encode()))
    return {**_BASE, "path": path, "raw_path": path.encode(), "headers": headers}


class Bench:
    """Every variant started in process against one issuer; :meth:`call` runs one row."""

    def __init__(self, issuer: str, token: str) -> None:
        from fw.rdb.migrate import upgrade

        self._workdir = tempfile.mkdtemp(prefix="fw-observability-")
        dsn = f"sqlite:///{self._workdir}/unused.sqlite3"
        asyncio.run(upgrade(dsn))
        self.loop = asyncio.new_event_loop()
        self.fw: list[Any] = []
        self.apps: dict[str, Any] = {}
        for variant, instrumented in (("fw", False), ("fw + metrics + tracing", True)):
            with fw_configured(issuer, dsn, instrumented):
                app = fw_app(issuer, dsn, instrumented)
                self.loop.run_until_complete(app.startup())
                app.build()
            self.fw.append(app)
            self.apps[variant] = app
        self.apps["Starlette"] = starlette_app(issuer, False)
        self.apps["Starlette + OTel ASGI + prometheus middleware"] = starlette_app(issuer, True)
        self.scopes = {
            "bare route": _scope("/hello", None),
            "bearer, repeated token": _scope("/api/me", token),
        }
        self.status: list[int] = []

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status.append(message["status"])

    async def run(self, variant: str, request: str, iterations: int) -> None:
        app, scope = self.apps[variant], self.scopes[request]
        for _ in range(iterations):
            await app(dict(scope), _receive, self.send)
        if self.status[-1] != 200:
            raise RuntimeError(f"{variant}, {request} answered {self.status[-1]}")

    def instrumented_fw_observes(self) -> bool:
        """Whether the instrumented fw App counts requests (the App wires metrics and tracing)."""
        app, answer = self.apps["fw + metrics + tracing"], []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                answer.append(message.get("body", b""))

        self.loop.run_until_complete(self.run("fw + metrics + tracing", "bare route", 1))
        self.loop.run_until_complete(app(_scope("/metrics", None), _receive, send))
        return b'fw_http_requests_total{method="GET",route="/hello",status="200"}' in b"".join(answer)

    def close(self) -> None:
        for app in self.fw:
            self.loop.run_until_complete(app.shutdown())
        self.loop.close()
        shutil.rmtree(self._workdir, ignore_errors=True)


def in_process(
    issuer: str, token: str, rounds: int, iterations: int
) -> tuple[dict[tuple[str, str], float], bool]:
    """µs per request of every (variant, request), best of interleaved rounds; and whether fw's
    instrumented App observed its requests."""
    bench = Bench(issuer, token)
    cases = [(variant, request) for request in REQUESTS for variant in VARIANTS]
    best = dict.fromkeys(cases, float("inf"))
    try:
        observed = bench.instrumented_fw_observes()
        for case in cases:  # warm-up: caches filled, histograms' children created
            bench.loop.run_until_complete(bench.run(*case, 200))
        for _ in range(rounds):
            for case in cases:
                start = time.perf_counter()
                bench.loop.run_until_complete(bench.run(*case, iterations))
                best[case] = min(best[case], (time.perf_counter() - start) / iterations * 1e6)
    finally:
        bench.close()
    return best, observed


# ---------------------------------------------------------------------------------------------
# Over HTTP


def serve(variant: str, issuer: str, port: int) -> None:
    """One variant under uvicorn on 127.0.0.1:``port`` (``--serve``); an fw App is served inside the
    configuration it was built in (its lifespan startup checks it runs under that one)."""
    import uvicorn

    with contextlib.ExitStack() as stack:
        if variant.startswith("fw"):
            from fw.rdb.migrate import upgrade

            workdir = tempfile.mkdtemp(prefix="fw-observability-")
            dsn = f"sqlite:///{workdir}/unused.sqlite3"
            asyncio.run(upgrade(dsn))
            instrumented = variant != "fw"
            stack.enter_context(fw_configured(issuer, dsn, instrumented))
            app = fw_app(issuer, dsn, instrumented)
            app.build()
        else:
            app = starlette_app(issuer, variant != "Starlette")
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def over_http(
    issuer: str, token: str, seconds: int, connections: int, rounds: int
) -> dict[tuple[str, str], float]:
    wrk.require()

    def serving(variant: str) -> Callable[[int], list[str]]:
        def command(port: int) -> list[str]:
            return [sys.executable, __file__, "--serve", variant, "--issuer", issuer, "--port", str(port)]

        return command

    def rps(port: int, request: str, seconds: int) -> float:
        headers = {"Authorization": f"Bearer {token}"} if request != "bare route" else None
        return wrk.rps(f"http://127.0.0.1:{port}{PATHS[request]}", seconds, connections, headers)

    best: dict[tuple[str, str], float] = {}
    with wrk.servers((variant, serving(variant)) for variant in VARIANTS) as servers:
        for _, port in servers:
            for request in REQUESTS:  # warm-up
                rps(port, request, 1)
        for _ in range(rounds):
            for request in REQUESTS:
                for variant, port in servers:
                    best[(variant, request)] = max(
                        best.get((variant, request), 0.0), rps(port, request, seconds)
                    )
    return best


# ---------------------------------------------------------------------------------------------
# Tables


def _cost_table(title: str, figures: dict[tuple[str, str], float], per: Callable[[float], float]) -> None:
    """Per request: fw off, fw on, added; Starlette plain, instrumented, added; fw's addition as a
    share of Starlette's. ``per`` turns a figure into µs per request."""
    print(f"{title}\n")
    print("| request | fw off | fw on | fw added | Starlette | Starlette instrumented | Starlette added "
          "| fw added / Starlette added |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for request in REQUESTS:
        fw_off, fw_on, plain, wired = (per(figures[(variant, request)]) for variant in VARIANTS)
        fw_added, starlette_added = fw_on - fw_off, wired - plain
        share = f"{fw_added / starlette_added:.2f}" if starlette_added > 0 else "—"
        print(
            f"| {request} | {fw_off:.2f} | {fw_on:.2f} | {fw_added:+.2f} | {plain:.2f} | {wired:.2f} "
            f"| {starlette_added:+.2f} | {share} |"
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--http", action="store_true", help="also measure requests/s under uvicorn with wrk")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--http-rounds", type=int, default=3)
    parser.add_argument("--serve", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--issuer", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.issuer, args.port)
        return
    from fw.testing.issuer import LocalIssuer

    with LocalIssuer() as issuer:  # serves its JWKS to every app below, in process or not
        token = issuer.mint("bench-user", scope="orders.read", audience="api", lifetime=timedelta(minutes=50))
        figures, observed = in_process(issuer.url, token, args.rounds, args.iterations)
        if not observed:
            print(
                "note: this fw does not install [observability.metrics] / [observability.tracing] in the "
                "App yet, so its 'on' column measures nothing turned on.\n"
            )
        _cost_table(
            f"In process, µs per request, best of {args.rounds} interleaved rounds of {args.iterations}",
            figures,
            lambda us: us,
        )
        if args.http:
            rps = over_http(issuer.url, token, args.seconds, args.connections, args.http_rounds)
            _cost_table(
                f"Over HTTP, µs per request (1e6 / best req/s): uvicorn, one worker each, wrk -t1 "
                f"-c{args.connections} -d{args.seconds}s, best of {args.http_rounds} round-robin rounds, "
                f"{cores.description()}",
                rps,
                lambda value: 1e6 / value,
            )
            print("| request | " + " | ".join(VARIANTS) + " |")
            print("|---|" + "---:|" * len(VARIANTS))
            for request in REQUESTS:
                print(f"| {request} | " + " | ".join(f"{rps[(v, request)]:,.0f}" for v in VARIANTS) + " |")
            print()
        print(json.dumps({f"{v} / {r}": round(us, 3) for (v, r), us in figures.items()}))


if __name__ == "__main__":
    main()
