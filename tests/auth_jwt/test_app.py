"""jwt_only inside an fw.App, configured through the configuration pillar like an application."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from pillars import pillars, the_pillar

import fw
import fw.auth
from fw import configuration
from fw.auth.modes.jwt_only.middleware import BearerMiddleware
from fw.auth.settings import AuthSettings
from fw.auth.stores.engines.rdb import RdbSettings
from fw.cli import main as fw_command
from fw.core.serve import RequestPath
from fw.errors import ConfigError, StartupError
from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer

from .config_file import jwt_only_toml

Configure = Callable[..., list[str]]


@pytest.fixture
def configure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Configure]:
    """Write a config file, set env vars, and parse as ``fw.run`` would; returns the argv used."""

    def apply(toml: str, env: dict[str, str] | None = None) -> list[str]:
        path = tmp_path / "config.toml"
        path.write_text(toml)
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        configuration.reset()
        for cls, prefix in ((AuthSettings, "auth"), (RdbSettings, "middleware.rdb")):
            if not any(r.cls is cls for r in configuration.registry.state().configs.values()):
                configuration.register_config(cls, prefix)
        argv = ["--config-path", str(path)]
        configuration.parse_config(argv)
        return argv

    monkeypatch.chdir(tmp_path)
    yield apply
    configuration.reset()


def _toml(issuer: LocalIssuer, dsn: str = "", *, revocation: str = "off", extra: str = "") -> str:
    jwt = f"{extra}\n" if extra else ""
    rdb = f'\n[middleware.rdb]\ndsn = "{dsn or "sqlite:///fw.sqlite3"}"\n'
    return jwt_only_toml(issuer.url, revocation=revocation, jwt=jwt) + rdb


def _app() -> fw.App:
    app = fw.App()

    @app.route("GET /api/whoami")
    async def whoami(request: fw.Request) -> fw.Response:
        caller = fw.auth.bearer(request)
        result = fw.request_authentication(request)
        assert result is not None and caller is not None
        return fw.JSONResponse({"account": caller.account_id, "method": result.method})

    @app.route("GET /health")
    async def health(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"caller": fw.auth.bearer(request) is not None})

    return app


async def _client(app: fw.App) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://testserver")


async def test_a_configured_jwt_only_app_verifies_bearer_tokens(
    configure: Configure, issuer: LocalIssuer
) -> None:
    configure(_toml(issuer))
    app = _app()
    await app.startup()
    try:
        async with await _client(app) as client:
            ok = await client.get("/api/whoami", headers={"Authorization": f"Bearer {issuer.mint('erin')}"})
            anonymous = await client.get("/api/whoami")
            health = await client.get("/health")
    finally:
        await app.shutdown()
    assert ok.json() == {"account": "erin", "method": "bearer"}
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"] == "Bearer"
    assert health.json() == {"caller": False}


async def test_revocation_through_the_app_uses_the_configured_store(
    configure: Configure, issuer: LocalIssuer, tmp_path: Path
) -> None:
    dsn = f"sqlite:///{tmp_path / 'app.sqlite3'}"
    configure(_toml(issuer, dsn, revocation="both"))
    await upgrade()  # the configured [middleware.rdb] dsn
    app = _app()
    await app.startup()
    try:
        token = issuer.mint("frank", token_id="jti-frank")
        async with await _client(app) as client:
            assert (
                await client.get("/api/whoami", headers={"Authorization": f"Bearer {token}"})
            ).status_code == 200
            await fw.auth.revoke_token(issuer.url, "jti-frank", "test")
            assert (
                await client.get("/api/whoami", headers={"Authorization": f"Bearer {token}"})
            ).status_code == 401
    finally:
        await app.shutdown()
    assert (await fw.auth.token_revoked(issuer.url, "jti-frank"))[0]  # from a script: a temporary engine


async def test_a_missing_required_key_refuses_to_start(configure: Configure, issuer: LocalIssuer) -> None:
    configure(_toml(issuer).replace('algorithms = ["RS256"]\n', ""))
    app = _app()
    with pytest.raises(StartupError) as refused:
        await app.startup()
    assert refused.value.key == "auth.jwt.algorithms"


async def test_an_oidc_setting_from_the_environment_is_foreign_to_jwt_only(
    configure: Configure, issuer: LocalIssuer
) -> None:
    configure(_toml(issuer), env={"AUTH_OIDC_ISSUER": "https://login.example"})
    with pytest.raises(StartupError) as refused:
        await _app().startup()
    assert refused.value.key == "auth.oidc.issuer"
    assert "AUTH_OIDC_ISSUER" in str(refused.value)


def test_auth_disabled_mounts_nothing(configure: Configure, issuer: LocalIssuer) -> None:
    configure(_toml(issuer).replace("enabled = true", "enabled = false"))
    assert pillars(_app()) == []


def test_fw_run_refuses_with_one_line_naming_the_key(
    configure: Configure, issuer: LocalIssuer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = configure(_toml(issuer).replace('max_token_lifetime = "1h"\n', ""))
    with pytest.raises(SystemExit) as exited:
        fw.run(_app(), argv)
    assert exited.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "auth.jwt.max_token_lifetime" in err[0]


def test_a_missing_table_names_fw_migrate(
    configure: Configure, issuer: LocalIssuer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = f"sqlite:///{tmp_path / 'never-migrated.sqlite3'}"
    argv = configure(_toml(issuer, dsn, revocation="token"))
    with pytest.raises(SystemExit) as exited:
        fw.run(_app(), argv)
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert "middleware.rdb.dsn" in err
    assert "fw migrate" in err


def test_fw_migrate_applies_the_framework_migrations_once(
    configure: Configure, issuer: LocalIssuer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = f"sqlite:///{tmp_path / 'migrated.sqlite3'}"
    argv = configure(_toml(issuer, dsn, revocation="token"))
    project = str(_project(tmp_path))
    assert fw_command(["--project", project, "migrate", *argv]) == 0
    first = capsys.readouterr().out
    assert fw_command(["--project", project, "migrate", *argv]) == 0
    second = capsys.readouterr().out
    assert "applied fw_0001" in first
    assert "applied" not in second
    assert "up to date" in second


def test_fw_migrate_reports_an_unreachable_database(
    configure: Configure, issuer: LocalIssuer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = configure(_toml(issuer, "postgresql://fw:pw@127.0.0.1:9/none", revocation="token"))
    assert fw_command(["--project", str(_project(tmp_path)), "migrate", *argv]) == 1
    err = capsys.readouterr().err
    assert "middleware.rdb.dsn" in err
    assert "pw" not in err


def _project(root: Path) -> Path:
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.fw]\napp = "demo:app"\n')
    return root


def test_the_doctor_reports_admit_on_unavailable_as_an_error(
    configure: Configure, issuer: LocalIssuer
) -> None:
    configure(_toml(issuer, revocation="both", extra='revocation.on_unavailable = "admit"'))
    lines = configuration.doctor_report()
    assert any(line.startswith("error:") and "on_unavailable" in line for line in lines)


@pytest.mark.parametrize("revocation", ["off", "both"])
def test_an_auth_backend_that_is_no_choice_is_refused_by_the_loader(
    configure: Configure, issuer: LocalIssuer, revocation: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        configure(_toml(issuer, revocation=revocation).replace("[auth]\n", '[auth]\nbackend = "memcached"\n'))
    assert refused.value.key == "auth.backend" and "'memcached' is not a choice" in str(refused.value)


@pytest.mark.parametrize("revocation", ["off", "both"])
async def test_a_dynamo_backend_is_used_or_refused_never_replaced_by_sqlite(
    configure: Configure, issuer: LocalIssuer, tmp_path: Path, revocation: str, closed_loopback_url: str
) -> None:
    toml = _toml(issuer, revocation=revocation).replace("[auth]\n", '[auth]\nbackend = "dynamo"\n')
    configure(toml + f'\n[middleware.dynamo]\nregion = "us-east-1"\nendpoint_url = "{closed_loopback_url}"\n')
    app = _app()
    if revocation == "off":  # nothing to keep: the store is never opened
        await app.startup()
        await app.shutdown()
    else:
        with pytest.raises(StartupError) as refused:
            await app.startup()
        assert (refused.value.key, refused.value.value) == ("auth.backend", "dynamo")
    assert not (tmp_path / "fw.sqlite3").exists()  # nothing was kept in the default SQLite file


async def test_a_firestore_backend_that_cannot_be_reached_refuses_to_start_naming_its_database(
    configure: Configure, issuer: LocalIssuer, tmp_path: Path
) -> None:
    toml = _toml(issuer, revocation="both").replace("[auth]\n", '[auth]\nbackend = "firestore"\n')
    configure(toml + '\n[middleware.firestore]\nproject = "fw-test"\nemulator_host = "127.0.0.1:9"\n')
    app = _app()
    with pytest.raises(StartupError) as refused:
        await app.startup()
    assert (refused.value.key, refused.value.value) == ("middleware.firestore.database", "(default)")
    assert not (tmp_path / "fw.sqlite3").exists()


async def test_a_jwt_only_app_answers_its_handlers_errors_and_its_refusals_through_one_error_boundary(
    configure: Configure, issuer: LocalIssuer
) -> None:
    configure(_toml(issuer))
    app = _app()

    @app.route("GET /api/conflict")
    async def conflict(request: fw.Request) -> fw.Response:
        raise fw.Problem(status=409, code="conflict")

    @app.route("GET /api/broken")
    async def broken(request: fw.Request) -> fw.Response:
        raise RuntimeError("a bug in a handler")

    await app.startup()
    try:
        stack: Any = app.build()
        assert type(stack) is RequestPath  # one layer: the decisions, the route and the boundary
        assert [type(middleware) for middleware in stack.middleware] == [BearerMiddleware]
        transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
            headers = {"Authorization": f"Bearer {issuer.mint('erin')}"}
            answered = await client.get("/api/conflict", headers=headers)
            failed = await client.get("/api/broken", headers=headers)
            refused = await client.get("/api/conflict")
    finally:
        await app.shutdown()
    assert (answered.status_code, answered.json()["code"]) == (409, "conflict")
    assert failed.status_code == 500 and "a bug" not in failed.text
    assert (refused.status_code, refused.headers["www-authenticate"]) == (401, "Bearer")


@pytest.mark.parametrize("path", ["settled without awaiting", "awaited", "behind the DPoP gate"])
async def test_an_unexpected_error_while_verifying_is_a_logged_500_problem_never_the_401_of_a_bad_token(
    configure: Configure,
    issuer: LocalIssuer,
    sqlite_dsn: str,
    path: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A 401 tells the client its token is bad and it throws the token away; a fault of the
    # server is no verdict on the token. (DPoP keeps its replay record in the store: a migrated one.)
    configure(_toml(issuer, sqlite_dsn, extra='dpop = "allowed"' if path == "behind the DPoP gate" else ""))
    if path == "awaited":  # a resolver to await sends every request through the awaited path
        fw.auth.set_account_resolver(lambda identity: fw.auth.Account(identity.value))
    app = _app()
    await app.startup()
    try:
        extension = the_pillar(app)
        running: Any = getattr(extension, "running", None)
        assert running is not None

        def broken(*parts: object, **options: object) -> None:
            raise RuntimeError("a bug in a verifier")

        monkeypatch.setattr(running.verifier, "_finish", broken)
        transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
            with caplog.at_level(logging.ERROR):
                failed = await client.get("/api/whoami", headers={"Authorization": f"Bearer {issuer.mint()}"})
            anonymous = await client.get("/api/whoami")
    finally:
        await app.shutdown()
    assert failed.status_code == 500
    assert failed.headers["content-type"] == "application/problem+json"
    assert failed.json()["code"] == "internal_error"
    assert "www-authenticate" not in failed.headers and "a bug" not in failed.text
    assert any(r.exc_info and isinstance(r.exc_info[1], RuntimeError) for r in caplog.records)
    assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"].startswith("Bearer")
