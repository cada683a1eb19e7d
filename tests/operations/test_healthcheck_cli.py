"""``fw healthcheck [--ready] [--timeout 3s]`` against a real uvicorn server on a loopback port.

The command runs as a container platform runs it: a new process, its configuration from the
working directory's files, the environment and its own options, exit 0 on 200 and 1 otherwise
with one line on stderr.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from auth_jwt.config_file import jwt_only_toml

import fw
from fw.cli.healthcheck import loopback, url_of
from fw.testing import configured
from fw.testing.issuer import LocalIssuer

from .conftest import served

pytestmark = pytest.mark.timeout(120)


def healthcheck(
    *arguments: str, cwd: Path, env: dict[str, str] | None = None, seconds: float = 60
) -> subprocess.CompletedProcess[str]:
    """``fw healthcheck ARGUMENTS`` in a new process in ``cwd``, with ``env`` added to ours."""
    environment = {**os.environ, **(env or {})}
    for name in [name for name in environment if name.startswith(("SERVER_", "AUTH_", "APP_ENV"))]:
        if name not in (env or {}):
            del environment[name]  # only what the test says configures the command
    return subprocess.run(
        [sys.executable, "-m", "fw.cli", "healthcheck", *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
    )


def port_of(base: str) -> str:
    return base.rpartition(":")[2]


def app() -> fw.App:
    served_app = fw.App()

    @served_app.route("GET /")
    async def home(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"home": True})

    return served_app


def test_fw_healthcheck_exits_0_while_the_server_serves_and_1_with_one_line_once_it_stopped(
    tmp_path: Path,
) -> None:
    with configured(), served(app()) as base:
        port = port_of(base)
        alive = healthcheck(cwd=tmp_path, env={"SERVER_PORT": port})
        assert (alive.returncode, alive.stdout, alive.stderr) == (0, "", "")
        ready = healthcheck("--ready", cwd=tmp_path, env={"SERVER_PORT": port})
        assert (ready.returncode, ready.stderr) == (0, "")
    stopped = healthcheck(cwd=tmp_path, env={"SERVER_PORT": port})
    assert stopped.returncode == 1
    assert stopped.stderr == f"fw: nothing listens at http://127.0.0.1:{port}/healthz (connection refused)\n"


def test_fw_healthcheck_ready_exits_1_naming_the_failing_check_while_liveness_still_passes(
    tmp_path: Path,
) -> None:
    with LocalIssuer() as issuer:
        issuer.published = []  # the App starts, but can verify no token: not ready
        with configured(toml=jwt_only_toml(issuer.url, include=None)), served(app()) as base:
            env = {"SERVER_PORT": port_of(base)}
            assert healthcheck(cwd=tmp_path, env=env).returncode == 0
            ready = healthcheck("--ready", cwd=tmp_path, env=env)
    assert ready.returncode == 1
    assert ready.stderr.splitlines() == [
        f"fw: http://127.0.0.1:{env['SERVER_PORT']}/readyz answered 503 (failing: jwks not_loaded)"
    ]


def test_the_host_port_and_paths_come_from_the_configuration_file_and_options(tmp_path: Path) -> None:
    toml = '[server.health]\nlive_path = "/ops/live"\nready_path = "/ops/ready"\n'
    with configured(toml=toml), served(app()) as base:
        port = port_of(base)
        (tmp_path / "config.dev.toml").write_text(f'[server]\nhost = "0.0.0.0"\nport = {port}\n\n{toml}')
        assert healthcheck(cwd=tmp_path).returncode == 0  # 0.0.0.0 is asked on 127.0.0.1
        assert healthcheck("--ready", "--timeout=2s", cwd=tmp_path).returncode == 0
        (tmp_path / "config.dev.toml").write_text(toml)
        by_option = healthcheck("--ready", "--server-port", port, cwd=tmp_path)
        assert (by_option.returncode, by_option.stderr) == (0, "")
        default_path = healthcheck(
            "--server-port", port, cwd=tmp_path, env={"SERVER_HEALTH_LIVE_PATH": "/healthz"}
        )
        assert default_path.returncode == 1
        assert default_path.stderr == f"fw: http://127.0.0.1:{port}/healthz answered 404\n"


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def test_a_server_that_never_answers_fails_the_check_once_the_timeout_has_passed(tmp_path: Path) -> None:
    with silent_server() as port:
        start = time.monotonic()
        done = healthcheck("--timeout", "700ms", cwd=tmp_path, env={"SERVER_PORT": str(port)})
        took = time.monotonic() - start
    assert done.returncode == 1
    assert done.stderr == f"fw: http://127.0.0.1:{port}/healthz did not answer within 700ms\n"
    assert took < 30  # the interpreter's start, the import, and 0.7 s of waiting


@pytest.mark.parametrize("value", ["x", "0s", "-1s", "3", ""])
def test_a_bad_timeout_is_refused_in_one_line_with_exit_status_1(value: str, tmp_path: Path) -> None:
    done = healthcheck("--timeout", value, cwd=tmp_path, env={"SERVER_PORT": "9"})
    assert done.returncode == 1
    assert done.stderr == f'fw: healthcheck --timeout needs a positive duration such as 3s, got "{value}"\n'


def test_help_prints_the_usage_and_asks_no_server(tmp_path: Path) -> None:
    with silent_server() as port:
        done = healthcheck("--help", cwd=tmp_path, env={"SERVER_PORT": str(port)}, seconds=30)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: fw [--project DIR] healthcheck [--ready] [--timeout 3s]")


@pytest.mark.parametrize(
    ("host", "asked", "url"),
    [
        ("0.0.0.0", "127.0.0.1", "http://127.0.0.1:8080/healthz"),
        ("::", "::1", "http://[::1]:8080/healthz"),
        ("[::]", "::1", "http://[::1]:8080/healthz"),
        ("10.0.0.5", "10.0.0.5", "http://10.0.0.5:8080/healthz"),
        ("::1", "::1", "http://[::1]:8080/healthz"),
    ],
)
def test_a_server_on_every_interface_is_asked_on_the_loopback_address_of_its_family(
    host: str, asked: str, url: str
) -> None:
    assert loopback(host) == asked
    assert url_of(loopback(host), 8080, "/healthz") == url


def test_in_a_project_the_check_reads_the_projects_configuration_from_any_of_its_folders(
    tmp_path: Path,
) -> None:
    root = tmp_path / "shop"
    (root / "shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "shop"\nversion = "0.1.0"\n\n[tool.fw]\napp = "shop.app:app"\n'
    )
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "app.py").write_text("import fw\n\napp = fw.App()\n")
    with configured(), served(app()) as base:
        (root / "config.dev.toml").write_text(f"[server]\nport = {port_of(base)}\n")
        done = healthcheck("--ready", cwd=root / "shop")
        assert (done.returncode, done.stderr) == (0, "")
        (root / "shop" / "app.py").write_text('raise RuntimeError("broken")\n')
        broken = healthcheck(cwd=root)
    assert broken.returncode == 1
    assert broken.stderr == "fw: healthcheck cannot import the App (RuntimeError: broken)\n"
