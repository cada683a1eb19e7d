"""``/healthz`` and ``/readyz`` of a running App, against the real stores it opened (DESIGN 10.4).

Each outage runs on a store of the test's own (a private PostgreSQL cluster, a private Redis, a
moto server, a Firestore emulator), stopped under an App served by uvicorn: readiness must turn
503 within two seconds, name the check that failed and nothing about where the store lives, and
come back to 200 by itself once the store is back; liveness answers 200 all along.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx2
import local_servers
import pytest
from auth_jwt.config_file import jwt_only_toml
from local_servers import AWS_ENVIRONMENT, NotInstalled, free_port
from private_servers import PrivatePostgres, PrivateRedis

import fw
import fw.operations
from fw.core.middleware import Pipeline
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider, configured
from fw.testing.issuer import LocalIssuer

from .conftest import served

pytestmark = pytest.mark.timeout(240)

#: DESIGN 10.4: readiness answers within two seconds of a store going away.
WITHIN = 2.0
#: How long a store that came back may still be reported (connections being replaced).
RECOVERY = 30.0


# Fixtures and helpers.
@pytest.fixture
def issuer() -> Iterator[LocalIssuer]:
    with LocalIssuer() as running:
        yield running


def api() -> fw.App:
    app = fw.App()

    @app.route("GET /api/me")
    async def me(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"me": True})

    return app


def jwt_toml(issuer: LocalIssuer, *, revocation: str = "off", store: str = "", protect: str = "/api/") -> str:
    """``jwt_only`` on ``issuer``; revocation read from the ``auth.backend`` store when not off."""
    return jwt_only_toml(issuer.url, revocation=revocation, include=protect, auth=store)


def rdb(dsn: str) -> str:
    return f'[middleware.rdb]\ndsn = "{dsn}"\npool_size = 4\n'


def until(
    client: httpx2.Client, status: int, within: float, path: str = "/readyz"
) -> tuple[httpx2.Response, float]:
    """Ask ``path`` until it answers ``status``; that answer and the seconds it took to come.

    Liveness is asked between each two readiness requests and must answer 200 every time.
    """
    start = time.monotonic()
    while True:
        answer = client.get(path)
        if answer.status_code == status:
            return answer, time.monotonic() - start
        live = client.get("/healthz")
        assert (live.status_code, live.json()) == (200, {"status": "ok"})
        if time.monotonic() - start > within:
            raise AssertionError(f"{path} still answers {answer.status_code} {answer.text} after {within} s")
        time.sleep(0.02)


def assert_names_only(answer: httpx2.Response, *secret_parts: str) -> None:
    """A 503 readiness answer: Retry-After, and no address, DSN or secret in the body or headers."""
    assert answer.headers["Retry-After"].isdigit()
    assert answer.headers["Cache-Control"] == "no-store"
    shown = answer.text + " ".join(f"{name}: {value}" for name, value in answer.headers.items())
    for part in ("127.0.0.1", "localhost", "://", *secret_parts):
        assert part not in shown, part


# What both endpoints answer.
def test_liveness_and_readiness_answer_ok_on_an_app_without_stores() -> None:
    with configured(), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        live, ready = client.get("/healthz"), client.get("/readyz")
        assert (live.status_code, live.json()) == (200, {"status": "ok"})
        assert (ready.status_code, ready.json()) == (200, {"status": "ok", "checks": {}})
        assert live.headers["Cache-Control"] == ready.headers["Cache-Control"] == "no-store"
        assert client.head("/healthz").status_code == 200


def test_the_health_endpoints_are_not_in_the_openapi_document() -> None:
    with configured(), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        paths = client.get("/openapi.json").json()["paths"]
        assert "/api/me" in paths
        assert not {"/healthz", "/readyz"} & set(paths)


def test_the_paths_come_from_server_health_and_enabled_false_turns_both_off() -> None:
    toml = '[server.health]\nlive_path = "/ops/live"\nready_path = "/ops/ready"\n'
    with configured(toml=toml), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        assert client.get("/ops/live").status_code == 200
        assert client.get("/ops/ready").json() == {"status": "ok", "checks": {}}
        assert client.get("/healthz").status_code == 404
    off = configured(toml="[server.health]\nenabled = false\n")
    with off, served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        assert client.get("/healthz").status_code == 404
        assert client.get("/readyz").status_code == 404


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('live_path = "healthz"', "server.health.live_path"),
        ('ready_path = "/ready/{name}"', "server.health.ready_path"),
        ('ready_path = "/healthz"', "server.health.ready_path"),
    ],
)
async def test_a_path_that_is_not_a_plain_distinct_path_refuses_the_start_naming_the_key(
    toml: str, key: str
) -> None:
    with configured(toml=f"[server.health]\n{toml}\n"):
        app = api()
        with pytest.raises(fw.StartupError) as refused:
            await app.startup()
    assert refused.value.key == key


class _Recorder:
    """An application middleware keeping each request's scope after the App answered it."""

    scopes: list[dict[str, object]] = []

    def __init__(self, app: Pipeline) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, object], receive: object, send: object) -> None:
        await self.app(scope, receive, send)  # type: ignore[arg-type]
        if scope["type"] == "http":
            type(self).scopes.append(scope)


def test_both_endpoints_mark_their_requests_untracked_and_other_requests_stay_tracked() -> None:
    app = api()
    app.add_middleware(_Recorder)
    _Recorder.scopes = []
    with configured(), served(app) as base, httpx2.Client(base_url=base, timeout=10) as client:
        for path in ("/healthz", "/readyz", "/api/me"):
            client.get(path)
    untracked = {scope["path"]: scope.get("fw.untracked", False) for scope in _Recorder.scopes}
    assert untracked == {"/healthz": True, "/readyz": True, "/api/me": False}


# PostgreSQL.
def test_readiness_goes_503_within_2_s_of_stopping_postgresql_and_returns_to_200_by_itself(
    issuer: LocalIssuer, postgres: PrivatePostgres
) -> None:
    toml = jwt_toml(issuer, revocation="both", store=rdb(postgres.dsn))
    with configured(toml=toml), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        ready = client.get("/readyz")
        assert (ready.status_code, ready.json()) == (
            200,
            {"status": "ok", "checks": {"postgresql": "ok", "jwks": "ok"}},
        )
        postgres.stop()
        down, seconds = until(client, 503, WITHIN)
        assert seconds <= WITHIN
        checks = down.json()["checks"]
        assert down.json()["status"] == "unavailable"
        assert checks["jwks"] == "ok" and checks["postgresql"] in ("unavailable", "timeout")
        assert_names_only(down, str(postgres.port), "postgres@", postgres.dsn)
        postgres.start()
        back, _ = until(client, 200, RECOVERY)
        assert back.json()["checks"] == {"postgresql": "ok", "jwks": "ok"}


# Redis.
def oidc_toml(idp: TestIdentityProvider, sqlite: str, session: str) -> str:
    """``oidc_only`` at the test provider, accounts in SQLite, sessions as ``session`` says."""
    return f"""
[auth]
enabled = true
mode = "oidc_only"

[auth.oidc]
issuer = "{idp.issuer}"
client_id = "{idp.client_id}"
client_secret = "{idp.client_secret}"
redirect_url = "http://127.0.0.1:9/auth/callback"
allow_loopback_http = true

[session]
enabled = true
{session}

{rdb(sqlite)}
"""


@pytest.fixture
def sqlite(tmp_path: Path) -> str:
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    asyncio.run(upgrade(dsn))
    return dsn


def test_readiness_goes_503_within_2_s_of_killing_redis_and_returns_to_200_when_it_is_back(
    idp: TestIdentityProvider, redis_server: PrivateRedis, sqlite: str
) -> None:
    toml = oidc_toml(idp, sqlite, f'backend = "redis"\nredis_url = "{redis_server.url}"')
    with configured(toml=toml), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        ready = client.get("/readyz")
        assert (ready.status_code, ready.json()["checks"]) == (
            200,
            {"sqlite": "ok", "redis": "ok", "provider": "ok"},
        )
        redis_server.kill()
        down, seconds = until(client, 503, WITHIN)
        assert seconds <= WITHIN
        assert down.json()["checks"]["redis"] in ("unavailable", "timeout")
        assert {name for name, outcome in down.json()["checks"].items() if outcome != "ok"} == {"redis"}
        assert_names_only(down, str(redis_server.port), idp.client_secret, idp.issuer)
        redis_server.start()  # on the same port: the App's client reconnects by itself
        until(client, 200, RECOVERY)


def test_readiness_answers_within_2_s_while_redis_hangs_and_names_it_timed_out(
    idp: TestIdentityProvider, redis_server: PrivateRedis, sqlite: str
) -> None:
    toml = oidc_toml(idp, sqlite, f'backend = "redis"\nredis_url = "{redis_server.url}"')
    with configured(toml=toml), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        assert client.get("/readyz").status_code == 200
        redis_server.freeze()  # connected, answering nothing
        try:
            start = time.monotonic()
            answers = _concurrently(base, 20)
            assert time.monotonic() - start <= WITHIN
            assert {answer.status_code for answer in answers} == {503}
            assert {answer.json()["checks"]["redis"] for answer in answers} == {"timeout"}
            assert client.get("/healthz").status_code == 200
        finally:
            redis_server.thaw()
        until(client, 200, RECOVERY)


def _concurrently(base: str, count: int) -> list[httpx2.Response]:
    """``count`` readiness requests at once, each on its own connection."""

    async def ask() -> list[httpx2.Response]:
        async with httpx2.AsyncClient(base_url=base, timeout=10) as client:
            return list(await asyncio.gather(*(client.get("/readyz") for _ in range(count))))

    return asyncio.run(ask())


# The cloud stores' stand-ins, stopped and started again on the same port.
class StandIn:
    """A moto server or a Firestore emulator (Datastore mode) of this test's own, on a port it
    keeps across restarts; each runs in a process group of its own (gcloud starts a Java server)."""

    def __init__(self, engine: str, folder: Path) -> None:
        self.engine = engine
        self.folder = folder
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        if self.engine == "dynamo":
            if importlib.util.find_spec("moto") is None:
                raise NotInstalled("moto's server is not installed (pip install 'moto[server]')")
            return [sys.executable, local_servers.__file__, "127.0.0.1", str(self.port)]
        gcloud = shutil.which("gcloud")
        if gcloud is None:
            raise NotInstalled("gcloud is not installed: the Firestore emulator cannot run")
        return [
            gcloud,
            "emulators",
            "firestore",
            "start",
            "--database-mode=datastore-mode",
            f"--host-port={self.address}",
        ]

    def start(self) -> None:
        command = self.command()
        with (self.folder / f"{self.engine}.log").open("ab") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "CLOUDSDK_CORE_DISABLE_PROMPTS": "1"},
                start_new_session=True,
            )
        deadline = time.monotonic() + 90
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise local_servers.DidNotStart(f"the {self.engine} stand-in did not start on {self.address}")
            time.sleep(0.1)

    def answers(self) -> bool:
        """The emulator answers HTTP once ready; moto once it accepts connections."""
        try:
            if self.engine == "firestore":
                with urllib.request.urlopen(f"http://{self.address}/", timeout=1) as answer:
                    return bool(answer.status == 200)
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            return False
        return True

    def stop(self) -> None:
        """Stop the process group; returns once nothing accepts connections on the port."""
        if self.process is None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            except OSError:
                return
            assert time.monotonic() < deadline, f"{self.address} still accepts connections"
            time.sleep(0.05)


@contextlib.contextmanager
def stand_in(engine: str, folder: Path) -> Iterator[StandIn]:
    server = StandIn(engine, folder)
    try:
        server.start()
    except NotInstalled as missing:
        pytest.skip(str(missing))
    try:
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            server.stop()


def _dynamo_table(server: StandIn, prefix: str) -> None:
    """fw's table on the moto server, as ``fw migrate`` creates it (a restart loses it)."""
    from fw.auth.stores.dynamo import create_table
    from fw.auth.stores.engines.dynamo import DynamoSettings

    asyncio.run(create_table(DynamoSettings("us-east-1", f"http://{server.address}", prefix)))


def _cloud_store(engine: str, server: StandIn, prefix: str) -> str:
    """``auth.backend`` on the stand-in, in the configuration's words."""
    if engine == "dynamo":
        return (
            'backend = "dynamo"\n\n[middleware.dynamo]\nregion = "us-east-1"\n'
            f'endpoint_url = "http://{server.address}"\ntable_prefix = "{prefix}"\n'
        )
    return (
        'backend = "firestore"\n\n[middleware.firestore]\nproject = "fw-test"\n'
        f'database = "health-{secrets.token_hex(4)}"\nemulator_host = "{server.address}"\n'
    )


@pytest.mark.parametrize(("engine", "check"), [("dynamo", "dynamodb"), ("firestore", "firestore")])
def test_readiness_goes_503_within_2_s_of_the_cloud_store_stand_in_going_away_and_back_to_200_after(
    engine: str, check: str, tmp_path: Path, issuer: LocalIssuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in AWS_ENVIRONMENT.items():  # moto takes any credentials, aiobotocore wants some
        monkeypatch.setenv(name, value)
    prefix = f"fw_health_{secrets.token_hex(4)}_"
    with stand_in(engine, tmp_path) as server:
        if engine == "dynamo":
            _dynamo_table(server, prefix)
        toml = jwt_toml(issuer, revocation="both", store=_cloud_store(engine, server, prefix))
        with configured(toml=toml), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
            ready = client.get("/readyz")
            assert (ready.status_code, ready.json()["checks"]) == (200, {check: "ok", "jwks": "ok"})
            server.stop()
            down, seconds = until(client, 503, WITHIN)
            assert seconds <= WITHIN
            assert down.json()["checks"][check] in ("unavailable", "timeout")
            assert down.json()["checks"]["jwks"] == "ok"
            assert_names_only(down, str(server.port), prefix)
            server.start()  # empty again: DescribeTable needs the table back, a lookup needs nothing
            if engine == "dynamo":
                _dynamo_table(server, prefix)
            until(client, 200, RECOVERY)


# The bearer keys and the provider.
def test_readiness_is_503_naming_jwks_while_the_issuer_publishes_no_key_and_200_once_it_does(
    issuer: LocalIssuer,
) -> None:
    published, issuer.published = issuer.published, []  # a key set fw can verify nothing with
    with (
        configured(toml=jwt_toml(issuer)),
        served(api()) as base,
        httpx2.Client(base_url=base, timeout=10) as client,
    ):
        down = client.get("/readyz")
        assert (down.status_code, down.json()) == (
            503,
            {"status": "unavailable", "checks": {"jwks": "not_loaded"}},
        )
        assert_names_only(down, str(issuer.port))
        asked = issuer.requests["/jwks.json"]
        for _ in range(5):  # a flood of probes is not a flood at the issuer
            assert client.get("/readyz").status_code == 503
        assert issuer.requests["/jwks.json"] <= asked + 1
        issuer.published = published
        back, _ = until(client, 200, RECOVERY)
        assert back.json() == {"status": "ok", "checks": {"jwks": "ok"}}
        token = issuer.mint("alice", audience="api")
        assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_the_provider_check_loads_discovery_once_and_an_outage_after_that_keeps_the_app_ready(
    idp: TestIdentityProvider, sqlite: str
) -> None:
    toml = oidc_toml(idp, sqlite, 'backend = "rdb"')
    with configured(toml=toml), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        ready = client.get("/readyz")
        assert ready.json() == {"status": "ok", "checks": {"sqlite": "ok", "provider": "ok"}}
        idp.running.stop()
        for _ in range(3):
            assert client.get("/readyz").json()["checks"]["provider"] == "ok"


def test_readiness_names_the_provider_until_its_discovery_document_can_be_loaded(sqlite: str) -> None:
    toml = f"""
[auth]
enabled = true
mode = "oidc_only"

[auth.oidc]
issuer = "http://127.0.0.1:{free_port()}"  # nothing answers there
client_id = "app"
client_secret = "{secrets.token_urlsafe(16)}"
redirect_url = "http://127.0.0.1:9/auth/callback"
allow_loopback_http = true

[session]
enabled = true

{rdb(sqlite)}
"""
    with configured(toml=toml), served(api()) as base, httpx2.Client(base_url=base, timeout=10) as client:
        down = client.get("/readyz")
        assert (down.status_code, down.json()["checks"]) == (503, {"sqlite": "ok", "provider": "not_loaded"})
        assert_names_only(down)


# Public, whatever [auth.protection] says.
@pytest.mark.parametrize("mode", ["jwt_only", "oidc_only"])
def test_both_endpoints_answer_without_credentials_when_protection_covers_every_path(
    mode: str, issuer: LocalIssuer, idp: TestIdentityProvider, sqlite: str
) -> None:
    if mode == "jwt_only":
        toml = jwt_toml(issuer, protect="/")
    else:
        toml = oidc_toml(idp, sqlite, 'backend = "rdb"').replace(
            'mode = "oidc_only"', 'mode = "oidc_only"\nprotection.include = ["/"]'
        )
    with (
        configured(toml=toml),
        served(api()) as base,
        httpx2.Client(base_url=base, timeout=10, follow_redirects=False) as client,
    ):
        assert client.get("/api/me").status_code in (302, 303, 401)  # protected indeed
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 200
