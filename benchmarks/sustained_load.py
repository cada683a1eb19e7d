"""Sustained load on two processes sharing PostgreSQL and Redis, with a store killed mid-run.

Four uvicorn processes on 127.0.0.1 share one PostgreSQL cluster and one Redis server that this
script starts itself (a throwaway ``initdb`` cluster and ``redis-server`` in a temporary folder,
stopped at the end; no shared server is touched): two ``oidc_only`` processes (sessions in Redis,
accounts in PostgreSQL, sign-in through the development provider) and two ``jwt_only`` processes
(revocation ``both`` in PostgreSQL, ``on_unavailable = refuse``). Each request is sent to one of
the two processes of its kind at random, so every check crosses processes.

A driver mixes sign-ins, signed-in page views, logouts, bearer requests, revocations and
reinstatements and checks each answer against what must hold; ``wrk`` adds steady background
load (page views and bearer requests, counting 5xx in Lua), paced at about 4,000 requests/s a
process so that the driver is not starved of the 2 cores it checks from. Afterwards it asserts: no 5xx (503
only while a store is down), no session lost or resurrected, every revocation and reinstatement
honoured by both processes within ``max_propagation_delay``, Redis and database record counts
equal to what is live, each process's resident memory flat between the first third and the end.
The kill scenarios stop Redis or PostgreSQL for 10 seconds mid-run: requests needing the store
answer 503 (never 500, never 200 for a revoked token), and the service recovers by itself.

    .venv/bin/python benchmarks/sustained_load.py                       # 3 scenarios x 180 s
    .venv/bin/python benchmarks/sustained_load.py --duration 20         # a smoke run
    .venv/bin/python benchmarks/sustained_load.py --scenario kill-redis --duration 60
    .venv/bin/python benchmarks/sustained_load.py --operations-outage --duration 90

``--operations-outage`` runs instead the scenario of benchmarks/operations_outage.py: one
``jwt_only`` process with metrics, tracing (to a loopback OTLP receiver) and the access log on,
its private PostgreSQL killed for 10 s mid-run; readiness must flip to 503 and back, the 503s in
the metrics and the access log must equal the driver's, and resident memory must stay flat.

Needs ``wrk``, ``redis-server`` and PostgreSQL's ``initdb``/``pg_ctl`` (run as root, the cluster is
created as the ``postgres`` user).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import httpx2
from jwt_config import jwt_only_toml
from wrk import free_port

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from fw.rdb.migrate import upgrade  # noqa: E402
from fw.testing import identity_provider  # noqa: E402
from fw.testing.issuer import LocalIssuer  # noqa: E402

SERVERS = Path(__file__).with_name("load_servers.py")
DELAY = 2.0  # auth.jwt.revocation.max_propagation_delay, seconds
SLACK = 1.0  # scheduling slack on a shared 2-core machine
LOGS = Path(tempfile.gettempdir()) / "fw-load-logs"  # the processes' stderr, kept when a scenario fails
KILL_SECONDS = 10.0
RECOVERY_SECONDS = 10.0  # after the store returns, answers may still be 503 this long
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres(command: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    return subprocess.run(command, check=True, capture_output=True, timeout=120, **kw)  # type: ignore[call-overload]


class OwnPostgres:
    """A throwaway cluster on a free loopback port, trust authentication, data in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.data = folder / "pg"
        self.port = free_port()
        self.data.mkdir()
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres")
            shutil.chown(self.data, "postgres")
        initdb = str(PG_BIN / "initdb") if (PG_BIN / "initdb").exists() else "initdb"
        _as_postgres([initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"])
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str) -> None:
        pg_ctl = str(PG_BIN / "pg_ctl") if (PG_BIN / "pg_ctl").exists() else "pg_ctl"
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data} -c max_connections=200"
        _as_postgres([pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.data / "log"), "-w", *args])

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        self._ctl("stop", "-m", "immediate")


class OwnRedis:
    """A ``redis-server`` on a free loopback port with an append-only file, so a restart keeps data."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "redis"
        self.folder.mkdir()
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.folder),
                "--appendonly",
                "yes",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.5):
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            subprocess.run(["redis-cli", "-p", str(self.port), "shutdown"], capture_output=True, timeout=30)
            self.process.wait(timeout=30)
            self.process = None

    def keys(self) -> int:
        answer = subprocess.run(
            ["redis-cli", "-p", str(self.port), "dbsize"], capture_output=True, timeout=30
        )
        return int(answer.stdout.strip())


@dataclass
class Process:
    kind: str
    pid: int
    url: str
    popen: subprocess.Popen[str]

    def rss(self) -> int:
        found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{self.pid}/status").read_text())
        return int(found.group(1)) * 1024 if found else 0


def start_process(kind: str, config: Path, env: dict[str, str]) -> Process:
    errors = config.with_suffix(".stderr").open("w")
    popen = subprocess.Popen(
        [sys.executable, str(SERVERS), kind, str(config)],
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
        env={**os.environ, **env, "PYTHONPATH": str(ROOT / "src")},
    )
    assert popen.stdout is not None
    for line in popen.stdout:
        if line.startswith("pid="):
            pid, port = (int(part.split("=")[1]) for part in line.split())
            return Process(kind, pid, f"http://127.0.0.1:{port}", popen)
    popen.kill()
    popen.wait(timeout=15)
    raise RuntimeError(f"{kind} process did not start: {config.with_suffix('.stderr').read_text()[-2000:]}")


def browser_config(issuer: str, client_id: str, dsn: str, redis_url: str) -> str:
    return f"""
[auth]
enabled = true
mode = "oidc_only"
post_login_path = "/page"
protection.include = ["/private/"]

[auth.oidc]
issuer = "{issuer}"
client_id = "{client_id}"
allow_loopback_http = true

[session]
enabled = true
backend = "redis"
redis_url = "{redis_url}"

[middleware.rdb]
dsn = "{dsn}"
"""


def bearer_config(issuer: str, dsn: str) -> str:
    refuse = 'revocation.on_unavailable = "refuse"\n'
    config = jwt_only_toml(issuer, revocation="both", delay=f"{int(DELAY * 1000)}ms", jwt=refuse)
    return config + f'\n[middleware.rdb]\ndsn = "{dsn}"\n'


WRK_SCRIPT = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
-- Paced: each connection waits 1 ms before its next request (at most about 4,000 requests/s a
-- process), a steady load that leaves the correctness driver some of the 2 cores.
function delay() return 1 end
function init(args) status5xx = 0; status500 = 0; status503 = 0 end
function response(status, headers, body)
  if status >= 500 then status5xx = status5xx + 1 end
  if status == 500 then status500 = status500 + 1 end
  if status == 503 then status503 = status503 + 1 end
end
function done(summary, latency, requests)
  local a, b, c = 0, 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("status5xx"); b = b + t:get("status500"); c = c + t:get("status503")
  end
  io.write(string.format("fw-5xx=%d fw-500=%d fw-503=%d\\n", a, b, c))
end
"""


@dataclass
class Findings:
    """What went wrong, by kind, with the first few examples of each."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    actions: Counter[str] = field(default_factory=Counter)

    def fail(self, kind: str, detail: str) -> None:
        self.counts[kind] += 1
        self.examples.setdefault(kind, [])
        if len(self.examples[kind]) < 5:
            self.examples[kind].append(detail)


@dataclass
class Token:
    jti: str
    value: str
    revoked: bool = False
    changed_at: float = 0.0
    #: A revocation or reinstatement of it is in flight: answers may show either state.
    changing: bool = False


class Driver:
    """The correctness mix: each answer is checked against what must hold at that moment."""

    def __init__(self, browsers: list[Process], bearers: list[Process], issuer: LocalIssuer) -> None:
        self.browsers = browsers
        self.bearers = bearers
        self.tokens = [Token(f"load-{n}", "") for n in range(24)]
        for token in self.tokens:
            token.value = issuer.mint("load-user", token_id=token.jti, lifetime=_minutes(55))
        self.live: list[httpx2.AsyncClient] = []
        self.ended: list[httpx2.AsyncClient] = []
        self.findings = Findings()
        self.outages: list[tuple[float, float]] = []  # (down at, back at + recovery)
        #: Sign-ins and logouts whose answer was a 503 or never came: the store may or may not
        #: have made the change (a write whose reply was lost). Their sessions are not checked;
        #: each may leave one session key until its TTL.
        self.uncertain = 0

    def store_may_be_down(self, started: float) -> bool:
        now = time.monotonic()
        return any(down <= now and started <= back for down, back in self.outages)

    def _status(self, what: str, response: httpx2.Response, started: float, expected: set[int]) -> bool:
        status = response.status_code
        if status in expected:
            if self.outages and started > self.outages[-1][1]:
                self.findings.actions["served after recovery"] += 1
            return True
        if status == 503 and self.store_may_be_down(started):
            self.findings.actions["503 while a store was down"] += 1
            return False
        kind = "5xx" if status >= 500 else "unexpected status"
        self.findings.fail(kind, f"{what}: {status} {response.text[:160]}")
        return False

    async def sign_in(self) -> None:
        client = _client()
        started = time.monotonic()
        process = random.choice(self.browsers)
        try:
            response = await client.get(f"{process.url}/auth/login", follow_redirects=True)
        except httpx2.HTTPError as error:
            self.findings.fail("transport error", f"sign-in: {error!r}")
            self.uncertain += 1
            await client.aclose()
            return
        if self._status("sign-in", response, started, {200}) and response.json().get("signed_in"):
            self.live.append(client)
        else:
            self.uncertain += response.status_code == 503
            await client.aclose()

    async def view(self) -> None:
        if not self.live:
            return
        client = random.choice(self.live)
        process = random.choice(self.browsers)
        started = time.monotonic()
        response = await client.get(f"{process.url}/page")
        still_live = client in self.live  # not logged out by another worker meanwhile
        if (
            self._status("page view", response, started, {200})
            and not response.json()["signed_in"]
            and still_live
        ):
            self.findings.fail("session lost", f"a live session was signed out at {process.url}")

    async def logout(self) -> None:
        if not self.live:
            return
        client = self.live.pop(random.randrange(len(self.live)))
        process = random.choice(self.browsers)
        started = time.monotonic()
        try:
            response = await client.post(f"{process.url}/auth/logout", headers={"Origin": process.url})
        except httpx2.HTTPError:
            self.uncertain += 1
            raise
        if self._status("logout", response, started, {303}):
            self.ended.append(client)
        elif response.status_code == 503:
            self.uncertain += 1  # the delete may have happened before the store failed
        else:
            self.live.append(client)  # refused: the session stays live

    async def view_ended(self) -> None:
        if not self.ended:
            return
        client = random.choice(self.ended)
        process = random.choice(self.browsers)
        started = time.monotonic()
        response = await client.get(f"{process.url}/page")
        if response.status_code == 200 and response.json()["signed_in"]:
            self.findings.fail("session resurrected", f"a logged-out session was signed in at {process.url}")
        else:
            self._status("ended page view", response, started, {200})

    async def bearer(self, http: httpx2.AsyncClient) -> None:
        token = random.choice(self.tokens)
        process = random.choice(self.bearers)
        started = time.monotonic()
        revoked, changed_at = token.revoked, token.changed_at
        settled = not token.changing and started - changed_at > DELAY + SLACK
        response = await http.get(f"{process.url}/api/me", headers={"Authorization": f"Bearer {token.value}"})
        settled = settled and not token.changing and token.changed_at == changed_at
        if response.status_code == 200 and revoked and settled:
            self.findings.fail("revocation not honoured", f"{token.jti} answered 200 at {process.url}")
        elif response.status_code == 401 and not revoked and settled:
            self.findings.fail("reinstatement not honoured", f"{token.jti} answered 401 at {process.url}")
        elif response.status_code not in (200, 401):
            self._status("bearer", response, started, set())

    async def flip(self, http: httpx2.AsyncClient) -> None:
        now = time.monotonic()
        settled = [t for t in self.tokens if not t.changing and now - t.changed_at > DELAY + SLACK]
        if not settled:
            return
        token = random.choice(settled)
        action = "reinstate" if token.revoked else "revoke"
        process = random.choice(self.bearers)
        started = time.monotonic()
        token.changing = True
        try:
            response = await http.post(f"{process.url}/admin/{action}", params={"jti": token.jti})
        finally:
            token.changing = False
            token.changed_at = time.monotonic()
        if self._status(action, response, started, {200}):
            token.revoked = not token.revoked
            self.findings.actions[action] += 1

    async def run(self, seconds: float, workers: int = 6) -> None:
        deadline = time.monotonic() + seconds
        actions = [
            (self.sign_in, 1), (self.view, 10), (self.logout, 1), (self.view_ended, 2),
            ("bearer", 10), ("flip", 1),
        ]  # fmt: skip
        weights = [weight for _, weight in actions]

        async def worker() -> None:
            async with _client() as http:
                while time.monotonic() < deadline:
                    action, _ = random.choices(actions, weights)[0]
                    name = action if isinstance(action, str) else action.__name__
                    try:
                        if action == "bearer":
                            await self.bearer(http)
                        elif action == "flip":
                            await self.flip(http)
                        else:
                            await action()  # type: ignore[operator]
                    except httpx2.HTTPError as error:
                        self.findings.fail("transport error", f"{name}: {error!r}")
                    self.findings.actions[name] += 1

        await asyncio.gather(*(worker() for _ in range(workers)))

    async def close(self) -> None:
        """Close every browser's connections (the sessions themselves stay as they are)."""
        for client in (*self.live, *self.ended):
            await client.aclose()


def _client() -> httpx2.AsyncClient:
    """A browser's client. It drops an idle connection after 2 s, before uvicorn's 5 s keep-alive
    ends it: reusing a connection the server is closing at that moment is a client-side race
    (the request is lost in flight), not an answer of the server under test."""
    return httpx2.AsyncClient(timeout=20, limits=httpx2.Limits(keepalive_expiry=2.0))


def _minutes(n: int) -> timedelta:
    return timedelta(minutes=n)


def run_wrk(url: str, seconds: int, headers: dict[str, str], script: Path) -> subprocess.Popen[str]:
    command = ["wrk", "-t1", "-c4", f"-d{seconds}s", "-s", str(script)]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    return subprocess.Popen([*command, url], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wrk_counts(output: str) -> dict[str, int]:
    found = re.search(r"fw-5xx=(\d+) fw-500=(\d+) fw-503=(\d+)", output)
    requests = re.search(r"(\d+) requests in", output)
    if not found or not requests:
        raise RuntimeError(f"unreadable wrk output:\n{output}")
    return {
        "requests": int(requests.group(1)),
        "5xx": int(found.group(1)),
        "500": int(found.group(2)),
        "503": int(found.group(3)),
    }


def count_rows(dsn: str, table: str) -> int:
    async def count() -> int:
        import asyncpg

        connection = await asyncpg.connect(dsn)
        try:
            return int(await connection.fetchval(f"select count(*) from {table}"))
        finally:
            await connection.close()

    return asyncio.run(count())


@contextlib.contextmanager
def stores(folder: Path) -> Iterator[tuple[OwnPostgres, OwnRedis]]:
    postgres, redis = OwnPostgres(folder), OwnRedis(folder)
    postgres.start()
    try:
        redis.start()
        try:
            asyncio.run(upgrade(postgres.dsn))
            yield postgres, redis
        finally:
            redis.stop()
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            postgres.stop()


def scenario(name: str, seconds: int) -> dict[str, object]:
    """Run one scenario; returns its figures and the list of failed assertions."""
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="fw-load-") as temp:
        folder = Path(temp)
        with (
            stores(folder) as (postgres, redis),
            identity_provider(login_user="alice") as idp,
            LocalIssuer() as issuer,
        ):
            browsers: list[Process] = []
            bearers: list[Process] = []
            try:
                env = {"AUTH_OIDC_CLIENT_SECRET": idp.client_secret}
                for n in range(2):
                    config = folder / f"browser-{n}.toml"
                    config.write_text(browser_config(idp.issuer, idp.client_id, postgres.dsn, redis.url))
                    browsers.append(start_process("browser", config, env))
                    config = folder / f"bearer-{n}.toml"
                    config.write_text(bearer_config(issuer.url, postgres.dsn))
                    bearers.append(start_process("bearer", config, {}))
                processes = [*browsers, *bearers]
                driver = Driver(browsers, bearers, issuer)
                steady = issuer.mint("wrk-user", lifetime=_minutes(55))
                with httpx2.Client(timeout=20) as http:
                    landed = http.get(f"{browsers[0].url}/auth/login", follow_redirects=True)
                    cookie = f"fw_session={http.cookies['fw_session']}"
                    assert landed.json()["signed_in"]
                script = folder / "count.lua"
                script.write_text(WRK_SCRIPT)
                wrks = [
                    run_wrk(f"{browsers[1].url}/page", seconds, {"Cookie": cookie}, script),
                    run_wrk(
                        f"{bearers[1].url}/api/me", seconds, {"Authorization": f"Bearer {steady}"}, script
                    ),
                ]

                async def drive() -> dict[str, int]:
                    sample_at = min(60.0, seconds / 3)
                    memory: dict[str, int] = {}

                    async def sample() -> None:
                        await asyncio.sleep(sample_at)
                        for process in processes:
                            memory[f"{process.kind}-{process.pid}"] = process.rss()

                    async def outage() -> None:
                        if name == "steady":
                            return
                        await asyncio.sleep(seconds / 3)
                        down = time.monotonic()
                        driver.outages.append((down, down + KILL_SECONDS + RECOVERY_SECONDS))
                        store = redis if name == "kill-redis" else postgres
                        await asyncio.to_thread(store.stop)
                        await asyncio.sleep(KILL_SECONDS)
                        await asyncio.to_thread(store.start)

                    await asyncio.gather(driver.run(seconds), sample(), outage())
                    await driver.close()
                    return memory

                at_first_third = asyncio.run(drive())
                wrk_results = [wrk_counts(w.communicate(timeout=seconds + 60)[0]) for w in wrks]
                at_end = {f"{p.kind}-{p.pid}": p.rss() for p in processes}

                # Afterwards.
                for kind, count in driver.findings.counts.items():
                    failures.append(f"{count} x {kind}: {driver.findings.examples[kind]}")
                for wrk in wrk_results:
                    if wrk["500"] or (wrk["5xx"] - wrk["503"]) or (wrk["503"] and name == "steady"):
                        failures.append(f"wrk saw server errors: {wrk}")
                if name != "steady" and not driver.findings.actions["served after recovery"]:
                    failures.append("nothing needing the store was served after it came back")
                revoked = sum(token.revoked for token in driver.tokens)
                rows = count_rows(postgres.dsn, "fw_revocations")
                if rows != revoked:
                    failures.append(f"fw_revocations holds {rows} rows, {revoked} tokens are revoked")
                live = len(driver.live) + 1  # the wrk session
                keys = redis.keys()
                # + the shared key and the account's index; a session of an uncertain sign-in or
                # logout may be there too, until its TTL
                if not live <= keys <= live + 2 + driver.uncertain:
                    failures.append(
                        f"Redis holds {keys} keys for {live} live sessions ({driver.uncertain} uncertain)"
                    )
                growth = {key: at_end[key] - at_first_third.get(key, at_end[key]) for key in at_end}
                if failures:
                    kept = LOGS / name
                    shutil.rmtree(kept, ignore_errors=True)
                    kept.mkdir(parents=True)
                    for log in folder.glob("*.stderr"):
                        shutil.copy(log, kept / log.name)
                    failures.append(f"the processes' stderr is kept in {kept}")
                for key, grown in growth.items():
                    if grown > max(32 * 1024**2, at_end[key] // 5):
                        failures.append(f"{key} grew {grown / 1024**2:.1f} MiB after the first third")
                return {
                    "scenario": name,
                    "seconds": seconds,
                    "driver actions": sum(driver.findings.actions.values()),
                    "wrk requests": sum(w["requests"] for w in wrk_results),
                    "503 in outage": driver.findings.actions["503 while a store was down"]
                    + sum(w["503"] for w in wrk_results),
                    "revocations/reinstatements": driver.findings.actions["revoke"]
                    + driver.findings.actions["reinstate"],
                    "served after recovery": driver.findings.actions["served after recovery"],
                    "max RSS growth MiB": round(max(growth.values()) / 1024**2, 1),
                    "failures": failures,
                }
            finally:
                for process in [*browsers, *bearers]:
                    process.popen.terminate()
                for process in [*browsers, *bearers]:
                    try:
                        process.popen.wait(timeout=15)
                    except subprocess.TimeoutExpired:
                        process.popen.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=180, help="seconds per scenario (default 180)")
    parser.add_argument(
        "--scenario", action="append", choices=["steady", "kill-redis", "kill-postgres"],
        help="run only these (repeatable); default all three",
    )  # fmt: skip
    parser.add_argument(
        "--operations-outage", action="store_true",
        help="run the observability scenario instead (benchmarks/operations_outage.py): "
        "metrics, tracing and access log on, PostgreSQL killed for 10 s",
    )  # fmt: skip
    parser.add_argument(
        "--no-preflight", action="store_true",
        help="with --operations-outage: serve without fw.run's preflight startup and shutdown",
    )  # fmt: skip
    args = parser.parse_args()
    if args.operations_outage:
        sys.path.insert(0, str(Path(__file__).parent))
        import operations_outage

        raise SystemExit(operations_outage.main(args.duration, preflight=not args.no_preflight))
    if shutil.which("wrk") is None or shutil.which("redis-server") is None:
        raise SystemExit("needs wrk and redis-server (apt-get install -y wrk redis-server)")
    results = [
        scenario(name, args.duration) for name in args.scenario or ["steady", "kill-redis", "kill-postgres"]
    ]
    columns = ["scenario", "seconds", "driver actions", "wrk requests", "revocations/reinstatements",
               "503 in outage", "served after recovery", "max RSS growth MiB"]  # fmt: skip
    print("| " + " | ".join(columns) + " | held |")
    print("|" + "---|" * (len(columns) + 1))
    for result in results:
        held = "yes" if not result["failures"] else "NO"
        print("| " + " | ".join(str(result[c]) for c in columns) + f" | {held} |")
    failed = [f"{r['scenario']}: {f}" for r in results for f in r["failures"]]  # type: ignore[attr-defined]
    for failure in failed:
        print("FAILED", failure)
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
