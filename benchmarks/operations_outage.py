"""The operations-outage scenario of the sustained-load run: observability on, PostgreSQL killed.

One ``jwt_only`` fw App (bearer revocation ``both`` in PostgreSQL, ``on_unavailable = refuse``)
runs under ``fw run``'s uvicorn (benchmarks/outage_server.py) with ``[observability.metrics]``,
``[observability.tracing]`` (to an OTLP/HTTP receiver on loopback, tests/operations/otlp_receiver.py)
and ``[observability.access_log]`` on. Its PostgreSQL is a private cluster
(tests/private_servers.py, never the shared one). A Python driver sends bearer requests with a
valid and a revoked token and requests to a route that needs no store, counting every status it
gets; pollers ask ``/readyz`` and ``/healthz`` every 100 ms; the server's resident memory is read
from ``/proc/PID/status`` every second. A third into the run PostgreSQL is stopped (``pg_ctl -m
immediate``) for ``kill_seconds``, then started again. Afterwards it checks:

- readiness answered 200 before the kill, 503 naming ``postgresql`` within 2 s of it, and 200
  again after the restart (and at the end); liveness answered 200 throughout;
- the scraped ``fw_http_requests_total`` equals what the driver saw, route by route and status
  by status, and its 503s summed over every series equal the driver's 503s (so no probe was
  counted); the access log holds as many 503 lines;
- the driver saw 503 only while the store was down (or for ``RECOVERY_SECONDS`` after), never a
  500, never a 200 for the revoked token, always 200 on the route needing no store, and a 200 on
  the bearer route again after the restart; no transport error;
- the receiver got spans, a 503 among them;
- resident memory stayed flat: after a warm-up, the median of the last third of the samples is
  within 10 % of the median of the first third.

    .venv/bin/python benchmarks/sustained_load.py --operations-outage --duration 90

``tests/operations/test_sustained_outage.py`` runs a 20-second version through :func:`run`.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parents[1]
for _folder in (ROOT / "benchmarks", ROOT / "tests", ROOT / "src"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from jwt_config import jwt_only_toml  # noqa: E402
from local_servers import free_port  # noqa: E402
from operations.otlp_receiver import OtlpReceiver  # noqa: E402
from private_servers import private_postgres  # noqa: E402

from fw.rdb.migrate import upgrade  # noqa: E402
from fw.testing.issuer import LocalIssuer  # noqa: E402

SERVER = Path(__file__).with_name("outage_server.py")
READY_WITHIN = 2.0  # readiness must answer 503 this soon after PostgreSQL is gone
RECOVERY_SECONDS = 10.0  # after PostgreSQL returns, answers needing it may still be 503 this long
POLL_EVERY = 0.1
MEMORY_TOLERANCE = 0.10
DELAY_MS = 2000  # auth.jwt.revocation.max_propagation_delay

BEARER_ROUTE = "/api/me"
OPEN_ROUTE = "/open"


def server_config(port: int, issuer: str, dsn: str, otlp: str) -> str:
    refuse = 'revocation.on_unavailable = "refuse"\n'
    server = f'\n[server]\nhost = "127.0.0.1"\nport = {port}\n'
    return (
        server
        + jwt_only_toml(issuer, revocation="both", delay=f"{DELAY_MS}ms", jwt=refuse)
        + f"""
[middleware.rdb]
dsn = "{dsn}"

[observability.metrics]
enabled = true

[observability.tracing]
enabled = true
endpoint = "{otlp}"
service_name = "fw-outage"

[observability.access_log]
enabled = true
"""
    )


@dataclass
class Poll:
    sent: float
    answered: float
    status: int  # 0: no answer (transport error)
    body: dict[str, Any]


@dataclass
class Timeline:
    """When the store went away and came back (``time.monotonic()``)."""

    kill_started: float = 0.0
    down: float = 0.0  # pg_ctl stop returned: nothing listens any more
    start_started: float = 0.0
    up: float = 0.0  # pg_ctl start returned: the server accepts connections


@dataclass
class Outcome:
    """What a run measured, and the checks that failed (empty when all held)."""

    seconds: float
    kill_seconds: float
    requests: Counter[tuple[str, int]] = field(default_factory=Counter)
    metrics: Counter[tuple[str, int]] = field(default_factory=Counter)
    metrics_503: int = 0
    access_log_503: int = 0
    access_log_lines: int = 0
    served_after_restart: int = 0  # bearer requests answered 200 after PostgreSQL came back
    transport_errors: int = 0
    spans: int = 0
    spans_503: int = 0
    readyz: list[Poll] = field(default_factory=list)
    healthz: list[Poll] = field(default_factory=list)
    rss: list[tuple[float, int]] = field(default_factory=list)  # (seconds into the run, bytes)
    timeline: Timeline = field(default_factory=Timeline)
    ready_flip: float | None = None  # seconds from the kill's start to the first 503 naming postgresql
    ready_back: float | None = None  # seconds from PostgreSQL back to the first 200
    memory_medians: tuple[int, int] = (0, 0)
    failures: list[str] = field(default_factory=list)

    @property
    def driver_503(self) -> int:
        return sum(count for (_, status), count in self.requests.items() if status == 503)

    def report(self) -> str:
        total = sum(self.requests.values())
        first, last = self.memory_medians
        lines = [
            f"operations outage: {self.seconds:.0f} s run, PostgreSQL down {self.kill_seconds:.0f} s",
            f"  driver requests        {total} ({total / self.seconds:.0f}/s); by route and status: "
            + ", ".join(f"{route} {status}: {n}" for (route, status), n in sorted(self.requests.items()))
            + f"; {self.served_after_restart} bearer 200s after the restart; "
            f"{self.transport_errors} transport errors",
            f"  503 seen by the driver {self.driver_503}; in the metrics {self.metrics_503}; "
            f"in the access log {self.access_log_503} (of {self.access_log_lines} lines)",
            f"  /readyz polls          {len(self.readyz)}; 503 naming postgresql after "
            + (f"{self.ready_flip:.2f} s" if self.ready_flip is not None else "never")
            + "; 200 again "
            + (f"{self.ready_back:.2f} s after the restart" if self.ready_back is not None else "never"),
            f"  /healthz polls         {len(self.healthz)}, "
            f"{sum(p.status == 200 for p in self.healthz)} answered 200",
            f"  spans received         {self.spans} ({self.spans_503} with status 503)",
            f"  resident memory        first-third median {first / 1024**2:.1f} MiB, "
            f"last-third median {last / 1024**2:.1f} MiB ({len(self.rss)} samples)",
        ]
        lines += [f"FAILED {failure}" for failure in self.failures] or ["  every check held"]
        return "\n".join(lines)


def vm_rss(pid: int) -> int:
    """The resident memory of ``pid`` in bytes (``VmRSS`` in ``/proc/PID/status``), 0 once it is gone."""
    try:
        found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    except OSError:
        return 0
    return int(found.group(1)) * 1024 if found else 0


def scraped_requests(text: str) -> tuple[Counter[tuple[str, int]], int]:
    """``fw_http_requests_total`` by (route, status), and its 503s summed over every series."""
    from prometheus_client.parser import text_string_to_metric_families

    by_route: Counter[tuple[str, int]] = Counter()
    all_503 = 0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name != "fw_http_requests_total":
                continue
            status = int(sample.labels["status"])
            by_route[(sample.labels["route"], status)] += int(sample.value)
            all_503 += int(sample.value) if status == 503 else 0
    return by_route, all_503


def access_log_statuses(text: str) -> Counter[int]:
    """The statuses of the ``fw.access`` lines among a JSON log's lines."""
    found: Counter[int] = Counter()
    for line in text.splitlines():
        if '"fw.access"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("logger") == "fw.access":
            found[int(record["status"])] += 1
    return found


class Server:
    """``outage_server.py`` in a child process, its standard output and error in ``folder``."""

    def __init__(self, folder: Path, config: str, port: int, *, preflight: bool = True) -> None:
        path = folder / "outage.toml"
        path.write_text(config)
        self.url = f"http://127.0.0.1:{port}"
        self.stderr = folder / "outage.stderr"
        with self.stderr.open("w") as errors, (folder / "outage.stdout").open("w") as out:
            self.popen = subprocess.Popen(
                [sys.executable, str(SERVER), str(path), *([] if preflight else ["--no-preflight"])],
                stdout=out,
                stderr=errors,
                cwd=folder,
                env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            )
        deadline = time.monotonic() + 60
        while True:
            if self.popen.poll() is not None:
                raise RuntimeError(f"the App did not start:\n{self.stderr.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the App did not answer /healthz within 60 s")
            try:
                if httpx2.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            time.sleep(0.1)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def stop(self) -> None:
        """SIGTERM, as a platform does: uvicorn drains and the App's shutdown flushes the spans."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=30)


async def _drive(
    server: Server,
    outcome: Outcome,
    valid: str,
    revoked: str,
    kill_at: float,
    stop_store: Any,
    start_store: Any,
    workers: int,
) -> None:
    timeline = outcome.timeline
    began = time.monotonic()
    deadline = began + outcome.seconds
    kinds = [("valid", 6), ("revoked", 1), ("open", 3)]
    weights = [weight for _, weight in kinds]

    def store_may_be_down(sent: float, answered: float) -> bool:
        """Whether the request overlapped the outage: answered after the kill began (a request
        in flight when PostgreSQL died fails too) and sent before the recovery window ended."""
        if not timeline.kill_started or answered < timeline.kill_started:
            return False
        return not timeline.up or sent <= timeline.up + RECOVERY_SECONDS

    def fail(detail: str) -> None:
        if len([f for f in outcome.failures if f.startswith(detail.split(":")[0])]) < 3:
            outcome.failures.append(detail)

    async def worker() -> None:
        async with httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(keepalive_expiry=2.0)) as http:
            while time.monotonic() < deadline:
                kind = random.choices(kinds, weights)[0][0]
                sent = time.monotonic()
                try:
                    if kind == "open":
                        response = await http.get(f"{server.url}{OPEN_ROUTE}")
                    else:
                        token = valid if kind == "valid" else revoked
                        response = await http.get(
                            f"{server.url}{BEARER_ROUTE}", headers={"Authorization": f"Bearer {token}"}
                        )
                except httpx2.HTTPError as error:
                    fail(f"transport error: {kind}: {error!r}")
                    outcome.transport_errors += 1
                    continue
                answered = time.monotonic()
                status = response.status_code
                route = OPEN_ROUTE if kind == "open" else BEARER_ROUTE
                outcome.requests[(route, status)] += 1
                expected = {"open": {200}, "valid": {200}, "revoked": {401}}[kind]
                if status in expected:
                    if kind == "valid" and timeline.up and sent > timeline.up:
                        outcome.served_after_restart += 1
                    continue
                if status == 503 and kind != "open" and store_may_be_down(sent, answered):
                    continue
                fail(f"unexpected answer: {kind} request answered {status}: {response.text[:160]}")

    async def poll(path: str, into: list[Poll]) -> None:
        async with httpx2.AsyncClient(timeout=5) as http:
            while time.monotonic() < deadline:
                sent = time.monotonic()
                try:
                    response = await http.get(f"{server.url}{path}")
                    body = response.json()
                    into.append(Poll(sent, time.monotonic(), response.status_code, body))
                except (httpx2.HTTPError, ValueError) as error:
                    into.append(Poll(sent, time.monotonic(), 0, {"error": repr(error)}))
                await asyncio.sleep(max(0.0, POLL_EVERY - (time.monotonic() - sent)))

    async def memory() -> None:
        while time.monotonic() < deadline:
            outcome.rss.append((time.monotonic() - began, vm_rss(server.pid)))
            await asyncio.sleep(1.0)

    async def outage() -> None:
        await asyncio.sleep(kill_at)
        timeline.kill_started = time.monotonic()
        await asyncio.to_thread(stop_store)
        timeline.down = time.monotonic()
        await asyncio.sleep(outcome.kill_seconds)
        timeline.start_started = time.monotonic()
        await asyncio.to_thread(start_store)
        timeline.up = time.monotonic()

    await asyncio.gather(
        *(worker() for _ in range(workers)),
        poll("/readyz", outcome.readyz),
        poll("/healthz", outcome.healthz),
        memory(),
        outage(),
    )


def check(outcome: Outcome, warmup: float) -> None:
    """Append to ``outcome.failures`` every check that did not hold."""
    failures = outcome.failures
    timeline = outcome.timeline
    if not timeline.up:
        failures.append("PostgreSQL was not stopped and started again within the run")
        return
    # Readiness.
    before = [p for p in outcome.readyz if p.answered < timeline.kill_started]
    if not before or any(p.status != 200 for p in before):
        failures.append(f"/readyz was not 200 before the kill: {[p.status for p in before][:20]}")
    flipped = [
        p
        for p in outcome.readyz
        if p.sent >= timeline.kill_started
        and p.status == 503
        and p.body.get("checks", {}).get("postgresql", "ok") != "ok"
    ]
    if flipped:
        outcome.ready_flip = flipped[0].answered - timeline.kill_started
    if outcome.ready_flip is None or outcome.ready_flip > READY_WITHIN:
        failures.append(
            f"/readyz did not answer 503 naming postgresql within {READY_WITHIN} s of the kill "
            f"(after {outcome.ready_flip})"
        )
    after = [p for p in outcome.readyz if p.sent >= timeline.up]
    back = [p for p in after if p.status == 200]
    if back:
        outcome.ready_back = back[0].answered - timeline.up
    if not back or after[-1].status != 200:
        failures.append(
            f"/readyz did not come back to 200 after the restart: {[p.status for p in after][-20:]}"
        )
    down_answers = [p for p in outcome.readyz if p.status != 200]
    leaked = [
        p.body
        for p in down_answers
        if "127.0.0.1" in json.dumps(p.body) or "postgresql://" in json.dumps(p.body)
    ]
    if leaked:
        failures.append(f"/readyz named a host or DSN: {leaked[0]}")
    # Liveness.
    if not outcome.healthz or any(p.status != 200 for p in outcome.healthz):
        bad = Counter(p.status for p in outcome.healthz if p.status != 200)
        failures.append(f"/healthz did not stay 200: {len(outcome.healthz)} polls, other answers {dict(bad)}")
    # Counting: the metrics, the access log and the driver agree.
    driver = Counter({key: n for key, n in outcome.requests.items() if key[0] in (BEARER_ROUTE, OPEN_ROUTE)})
    scraped = Counter({key: n for key, n in outcome.metrics.items() if key[0] in (BEARER_ROUTE, OPEN_ROUTE)})
    if driver != scraped:
        failures.append(f"fw_http_requests_total {dict(scraped)} != what the driver saw {dict(driver)}")
    if outcome.metrics_503 != outcome.driver_503:
        failures.append(f"the metrics count {outcome.metrics_503} 503s, the driver saw {outcome.driver_503}")
    if outcome.access_log_503 != outcome.driver_503:
        failures.append(
            f"the access log holds {outcome.access_log_503} 503s, the driver saw {outcome.driver_503}"
        )
    if not outcome.driver_503:
        failures.append("no request answered 503: the outage was not seen")
    if not outcome.served_after_restart:
        failures.append("no bearer request was served 200 after PostgreSQL came back")
    if any(status == 500 for _, status in outcome.requests):
        failures.append("a request answered 500")
    # Tracing.
    if not outcome.spans or not outcome.spans_503:
        failures.append(f"the OTLP receiver got {outcome.spans} spans, {outcome.spans_503} of a 503")
    # Memory: flat after the warm-up.
    steady = [rss for at, rss in outcome.rss if at >= warmup and rss]
    third = len(steady) // 3
    if third < 2:
        failures.append(f"too few memory samples after the warm-up: {len(steady)}")
        return
    first, last = statistics.median(steady[:third]), statistics.median(steady[-third:])
    outcome.memory_medians = (int(first), int(last))
    if abs(last - first) > MEMORY_TOLERANCE * first:
        failures.append(
            f"resident memory moved from {first / 1024**2:.1f} MiB to {last / 1024**2:.1f} MiB "
            f"(more than {MEMORY_TOLERANCE:.0%})"
        )


def run(
    seconds: float = 90.0,
    kill_seconds: float = 10.0,
    *,
    kill_at: float | None = None,
    warmup: float | None = None,
    workers: int = 8,
    preflight: bool = True,
) -> Outcome:
    """Run the scenario for ``seconds`` with PostgreSQL down ``kill_seconds`` from ``kill_at``
    (default a third in); the returned outcome's ``failures`` is empty when every check held.
    ``preflight=False`` serves without ``fw.run``'s preflight (see outage_server.py)."""
    kill_at = seconds / 3 if kill_at is None else kill_at
    warmup = min(10.0, seconds / 6) if warmup is None else warmup
    outcome = Outcome(seconds=seconds, kill_seconds=kill_seconds)
    with (
        tempfile.TemporaryDirectory(prefix="fw-outage-") as temp,
        private_postgres() as postgres,
        LocalIssuer() as issuer,
        OtlpReceiver() as receiver,
    ):
        asyncio.run(upgrade(postgres.dsn))
        port = free_port()
        server = Server(
            Path(temp),
            server_config(port, issuer.url, postgres.dsn, receiver.endpoint),
            port,
            preflight=preflight,
        )
        try:
            valid = issuer.mint("load-user", token_id="outage-valid", lifetime=timedelta(minutes=55))
            revoked = issuer.mint("load-user", token_id="outage-revoked", lifetime=timedelta(minutes=55))
            answer = httpx2.post(f"{server.url}/admin/revoke", params={"jti": "outage-revoked"}, timeout=20)
            answer.raise_for_status()
            asyncio.run(
                _drive(server, outcome, valid, revoked, kill_at, postgres.stop, postgres.start, workers)
            )
            scrape = httpx2.get(f"{server.url}/metrics", timeout=20)
            scrape.raise_for_status()
            outcome.metrics, outcome.metrics_503 = scraped_requests(scrape.text)
        finally:
            server.stop()
        statuses = access_log_statuses(server.stderr.read_text())
        outcome.access_log_503 = statuses[503]
        outcome.access_log_lines = sum(statuses.values())
        outcome.spans = len(receiver.spans)
        outcome.spans_503 = sum(
            span.attributes.get("http.response.status_code") == 503 for span in receiver.spans
        )
    check(outcome, warmup)
    return outcome


def main(seconds: float, kill_seconds: float = 10.0, *, preflight: bool = True) -> int:
    """Run, print the report, and answer the exit status (1 when a check failed)."""
    outcome = run(seconds, kill_seconds, preflight=preflight)
    print(outcome.report())
    return 1 if outcome.failures else 0


if __name__ == "__main__":
    raise SystemExit(
        main(float(sys.argv[1]) if len(sys.argv) > 1 else 90.0, preflight="--no-preflight" not in sys.argv)
    )
