"""``[server]`` values that cannot be served are refused with one line before anything listens."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import fw
from fw.server_checks import check_host, check_server, host_syntax_problem
from fw.settings import ServerSettings
from fw.testing import configured

ROOT = Path(__file__).resolve().parents[1]


def run_example(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("HELLO_", "APP_ENV", "SERVER_", "AUTH_"))
    }
    clean.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "examples.hello.app"],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        (
            "SERVER_PORT",
            "70000",
            "fw: server.port = 70000: use a port from 0 to 65535 (0 picks a free one)\n",
        ),
        ("SERVER_PORT", "-1", "fw: server.port = -1: use a port from 0 to 65535 (0 picks a free one)\n"),
        (
            "SERVER_MAX_REQUEST_BODY",
            "0",
            "fw: server.max_request_body = 0: use a positive number of bytes, such as 10485760 (10 MiB)\n",
        ),
        (
            "SERVER_CBOR_MAX_BODY",
            "-5",
            "fw: server.cbor_max_body = -5: use a positive number of bytes, such as 1048576 (1 MiB)\n",
        ),
        (
            "SERVER_BODY_TIMEOUT",
            "-5s",
            "fw: server.body_timeout = '-5s': use a duration such as 30s (0s: no limit)\n",
        ),
    ],
)
def test_an_out_of_range_server_value_exits_1_with_one_line_naming_key_value_and_fix(
    tmp_path: Path, name: str, value: str, line: str
) -> None:
    result = run_example(tmp_path, **{name: value})
    assert result.returncode == 1
    assert result.stderr == line
    assert result.stdout == ""  # refused before the summary and before uvicorn


@pytest.mark.parametrize("host", ["256.1.1.1", "not a host", "", "-leading.example", "[::1]", "a..b"])
def test_a_host_that_is_no_ip_address_or_host_name_exits_1_without_traceback(
    tmp_path: Path, host: str
) -> None:
    result = run_example(tmp_path, SERVER_HOST=host)
    assert result.returncode == 1
    assert result.stderr.startswith(f"fw: server.host = {host!r}: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr and "Uvicorn" not in result.stderr


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "0.0.0.0", "::1", "::", "localhost", "app.example.", "db-1.internal"]
)
def test_ip_literals_and_well_formed_names_pass_the_syntax_check(host: str) -> None:
    assert host_syntax_problem(host) is None


async def test_a_name_this_machine_cannot_resolve_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def unresolvable(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unresolvable)
    with pytest.raises(fw.StartupError) as refused:
        await check_host("db-1.internal")
    assert refused.value.key == "server.host" and refused.value.value == "db-1.internal"
    assert "cannot be resolved (" in str(refused.value) and "Name or service not known" in str(refused.value)


async def test_an_ip_literal_is_never_looked_up_and_a_name_is(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[str] = []

    def record(host: str, *args: Any, **kwargs: Any) -> Any:
        looked_up.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 0))]

    monkeypatch.setattr(socket, "getaddrinfo", record)
    await check_server(
        ServerSettings(
            host="::1", port=0, max_request_body=1, cbor_max_body=1, body_timeout=timedelta(0), docs=False
        )
    )
    await check_server(
        ServerSettings(
            host="localhost",
            port=65535,
            max_request_body=1,
            cbor_max_body=1,
            body_timeout=timedelta(0),
            docs=False,
        )
    )
    assert looked_up == ["localhost"]


def test_the_app_refuses_to_start_under_any_asgi_server_with_a_bad_server_value() -> None:
    with configured(env={"SERVER_PORT": "65536"}):
        app = fw.App()
        refused = pytest.raises(fw.StartupError, match=r"^server.port = 65536: use a port from 0 to 65535")
        with refused, TestClient(app):
            pass
