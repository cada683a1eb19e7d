"""Real processes on loopback for end-to-end tests: free ports, start, wait until ready, stop."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import httpx2
from local_servers import stop

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
#: Debian's chromium (installed by bash .ci/run), driven by Playwright without a browser download.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def clean_env(extra: Mapping[str, str]) -> dict[str, str]:
    """The current environment without configuration variables that would leak into the app."""
    prefixes = ("AUTH_", "SESSION_", "MIDDLEWARE_", "SERVER_", "APP_ENV")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def oidc_only_env(extra: Mapping[str, str]) -> dict[str, str]:
    """A development app process's environment: ``oidc_only`` on loopback, ``/private/`` protected,
    sessions on; ``extra`` names the provider and anything more."""
    return clean_env(
        {
            "APP_ENV": "dev",
            "AUTH_ENABLED": "true",
            "AUTH_MODE": "oidc_only",
            "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true",
            "AUTH_PROTECTION_INCLUDE": "/private/",
            "SESSION_ENABLED": "true",
            **extra,
        }
    )


@contextlib.contextmanager
def serving(
    command: Sequence[str], *, env: Mapping[str, str], cwd: Path, ready_url: str, log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``command`` and yield once ``ready_url`` answers; stop that process (only it) after."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            list(command), env=dict(env), cwd=cwd, stdout=output, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"{command} exited with {process.returncode}:\n{log.read_text()}")
                try:
                    httpx2.get(ready_url, timeout=1)
                    break
                except httpx2.HTTPError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{command} did not answer:\n{log.read_text()}") from None
                    time.sleep(0.1)
            yield process
        finally:
            stop(process)


@contextlib.contextmanager
def app_processes(app: Path, env: Mapping[str, str], tmp_path: Path, count: int = 2) -> Iterator[list[str]]:
    """``count`` uvicorn processes of the script ``app`` on free loopback ports; their origins."""
    with contextlib.ExitStack() as stack:
        origins = []
        for number in range(count):
            port = free_port()
            origin = f"http://127.0.0.1:{port}"
            stack.enter_context(
                serving(
                    [PYTHON, str(app), "--server-port", str(port)],
                    env=dict(env),
                    cwd=tmp_path,
                    ready_url=f"{origin}/me",
                    log=tmp_path / f"app-{number}.log",
                )
            )
            origins.append(origin)
        yield origins


@contextlib.contextmanager
def fw_dev_example(example: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``fw dev`` serving a copy of ``examples/<example>`` on a free loopback port; (origin, log)."""
    import shutil

    workdir = tmp_path / example
    shutil.copytree(
        REPO / "examples" / example, workdir, ignore=shutil.ignore_patterns("*.sqlite3", "__pycache__")
    )
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    log = tmp_path / "fw-dev.log"
    command = [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(port)]
    with serving(command, env=clean_env({"APP_ENV": "dev"}), cwd=workdir, ready_url=f"{origin}/", log=log):
        yield origin, log


def sign_in_as_bob(browser: httpx2.Client, origin: str) -> None:
    """Sign in as bob at the development provider, as a browser does; ends on /account."""
    picker = browser.get(f"{origin}/account")
    assert "Choose a user" in picker.text
    action = re.search(r"<form method='post' action='([^']+)'>", picker.text)
    assert action
    hidden = dict(re.findall(r"<input type='hidden' name='([^']+)' value='([^']*)'>", picker.text))
    account = browser.post(action.group(1), data={**hidden, "user": "bob"})
    assert str(account.url) == f"{origin}/account"
    assert "Bob Example" in account.text
