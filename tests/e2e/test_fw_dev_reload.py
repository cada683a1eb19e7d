"""``fw dev`` reloading on change, on a project ``fw init`` wrote: the new code served, a signed-in
browser still signed in, a change that does not load leaving the last good app serving, and
``--no-reload`` serving from fw dev's own process; stopping leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from e2e.support import PYTHON, clean_env, free_port, serving, sign_in_as_bob
from fw.scaffold import init_options, scaffold

#: Long enough for a reload on a loaded machine; every wait below ends as soon as it is met.
RELOAD_SECONDS = 60

pytestmark = pytest.mark.timeout(240)

EXCITEMENT = """    excitement: Annotated[int, fw.check("min=0,max=5"), fw.default("1")]
"""
ADDED_FIELD = (
    EXCITEMENT
    + """\
    #: How to address the person, written before the name.
    title: Annotated[str, fw.check("maxlen=16"), fw.default("")]
"""
)


@dataclass
class DevServer:
    root: Path
    origin: str
    log: Path
    process: subprocess.Popen[bytes]

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def app_pids(self) -> list[int]:
        """The app processes that started serving, in order (uvicorn's own startup line)."""
        return [int(pid) for pid in re.findall(r"Started server process \[(\d+)\]", self.output())]

    def greet(self, body: dict[str, str]) -> str:
        answer = httpx2.post(f"{self.origin}/greetings", json=body, timeout=10)
        assert answer.status_code == 200, answer.text
        message = answer.json()["message"]
        assert isinstance(message, str)
        return message

    def greets(self, body: dict[str, str], expected: str) -> bool:
        """Whether the app answers ``expected``; ``False`` while no app listens (mid-reload)."""
        try:
            return self.greet(body) == expected
        except httpx2.TransportError:
            return False


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    scaffold(init_options(root, name=None, preset="web", auth="oidc_only"))
    return root


@contextlib.contextmanager
def _fw_dev(tmp_path: Path, *options: str) -> Iterator[DevServer]:
    root = _project(tmp_path)
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    log = tmp_path / "fw-dev.log"
    command = [PYTHON, "-m", "fw.cli", "dev", *options, "--server-port", str(port)]
    env = clean_env({"APP_ENV": "dev"})
    with serving(command, env=env, cwd=root, ready_url=f"{origin}/", log=log) as process:
        yield DevServer(root, origin, log, process)


def _wait_for(what: str, check: Callable[[], bool], server: DevServer) -> None:
    deadline = time.monotonic() + RELOAD_SECONDS
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {RELOAD_SECONDS}s:\n{server.output()}")
        time.sleep(0.2)


def _add_title_field(root: Path) -> None:
    """Add a field to the request dataclass and use it in the handler, as a developer would."""
    models = root / "src" / "shop" / "models.py"
    source = models.read_text()
    assert EXCITEMENT in source
    models.write_text(source.replace(EXCITEMENT, ADDED_FIELD))
    handler = root / "src" / "shop" / "handlers" / "api" / "greetings.py"
    code = handler.read_text()
    assert "{ask.name}" in code
    handler.write_text(code.replace("{ask.name}", "{ask.title}{ask.name}"))


def _process_gone(pid: int) -> bool:
    """No such process, or only its exit status left (a zombie nobody has reaped yet)."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return True
    return state == "Z"


def _refused(origin: str) -> bool:
    try:
        httpx2.get(origin, timeout=2)
    except httpx2.ConnectError:
        return True
    return False


def test_a_new_request_field_is_bound_after_the_reload_and_the_browser_stays_signed_in(
    tmp_path: Path,
) -> None:
    with _fw_dev(tmp_path) as server, httpx2.Client(follow_redirects=True) as browser:
        sign_in_as_bob(browser, server.origin)
        first = server.app_pids()
        assert first and first[0] != server.process.pid  # the app serves from a child process
        assert server.greet({"name": "Ann", "title": "Dr "}) == "Hello, Ann!"  # no such field yet

        _add_title_field(server.root)

        _wait_for("reload", lambda: server.greets({"name": "Ann", "title": "Dr "}, "Hello, Dr Ann!"), server)
        assert "changed; reloading" in server.output()
        assert len(server.app_pids()) >= 2 and _process_gone(first[0])  # two saves may make two reloads
        assert "regenerated src/shop/handlers/api/_fw_binders.py" in server.output()
        # The new field is checked by its generated binder, not merely read.
        too_long = httpx2.post(f"{server.origin}/greetings", json={"name": "Ann", "title": "x" * 17})
        assert too_long.status_code == 400 and "title" in too_long.text

        account = browser.get(f"{server.origin}/account")
        assert account.status_code == 200 and not account.history  # no trip to the provider
        assert "Bob Example" in account.text
        # One provider for the whole run: its issuer, registration and keys stayed.
        assert server.output().count("development identity provider at") == 1


def test_a_syntax_error_is_printed_and_the_last_good_app_keeps_serving(tmp_path: Path) -> None:
    with _fw_dev(tmp_path) as server:
        models = server.root / "src" / "shop" / "models.py"
        good = models.read_text()
        models.write_text(good + "\nbroken = (\n")

        _wait_for("refusal", lambda: "the last good app keeps serving" in server.output(), server)
        output = server.output()
        assert re.search(r"src/shop/models\.py:\d+: syntax error", output), output
        assert "Traceback" not in output
        assert server.greet({"name": "Ann"}) == "Hello, Ann!"
        assert len(server.app_pids()) == 1

        models.write_text(good)  # fixed: the next save reloads again
        _wait_for("reload after the fix", lambda: len(server.app_pids()) == 2, server)
        _wait_for("answer after the fix", lambda: server.greets({"name": "Ann"}, "Hello, Ann!"), server)


def test_a_refused_configuration_keeps_the_last_good_app_and_a_new_migration_is_applied(
    tmp_path: Path,
) -> None:
    with _fw_dev(tmp_path) as server:
        config = server.root / "config.dev.toml"
        good = config.read_text()
        assert 'session.ttl = "24h"' in good
        config.write_text(good.replace('session.ttl = "24h"', 'session.ttl = "soon"'))
        _wait_for("refusal", lambda: "the last good app keeps serving" in server.output(), server)
        assert re.search(r"fw: .*auth\.session\.ttl.*soon", server.output()), server.output()
        assert server.greet({"name": "Ann"}) == "Hello, Ann!"
        config.write_text(good)

        written = subprocess.run(
            [PYTHON, "-m", "fw.cli", "migrate", "new", "notes table"],
            env=clean_env({"APP_ENV": "dev"}),
            cwd=server.root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert written.returncode == 0, written.stderr
        _wait_for(
            "migration", lambda: re.search(r"applied \w+: notes table", server.output()) is not None, server
        )
        _wait_for("answer", lambda: server.greets({"name": "Ann"}, "Hello, Ann!"), server)


def test_an_app_that_cannot_start_ends_fw_dev_with_its_status_and_no_process_behind(tmp_path: Path) -> None:
    """Before any reload, an app process that stops by itself (here: its port is taken) ends fw dev,
    as fw dev --no-reload would end, instead of waiting for a save that cannot help."""
    root = _project(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(port)],
            env=clean_env({"APP_ENV": "dev"}),
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )
    output = done.stdout + done.stderr
    assert done.returncode not in (0, None), output
    assert "address already in use" in output
    assert "Traceback" not in output
    (app_pid,) = [int(pid) for pid in re.findall(r"Started server process \[(\d+)\]", output)]
    assert _process_gone(app_pid)


def test_no_reload_serves_from_fw_dev_itself_and_ignores_changes(tmp_path: Path) -> None:
    with _fw_dev(tmp_path, "--no-reload") as server:
        assert server.app_pids() == [server.process.pid]
        _add_title_field(server.root)
        time.sleep(4)  # longer than a reload's debounce (1.6 s)
        assert server.greet({"name": "Ann", "title": "Dr "}) == "Hello, Ann!"
        assert "reloading" not in server.output()
        assert server.app_pids() == [server.process.pid]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_stopping_fw_dev_stops_its_app_process_and_provider(tmp_path: Path, stop: signal.Signals) -> None:
    """SIGTERM shuts everything down cleanly; even SIGKILL (no clean-up at all in fw dev) leaves
    no app process behind, since the app process notices that fw dev is gone."""
    with _fw_dev(tmp_path) as server:
        (app_pid,) = server.app_pids()
        provider = re.search(r"development identity provider at (http://127\.0\.0\.1:\d+)", server.output())
        assert provider
        server.process.send_signal(stop)
        assert server.process.wait(timeout=30) == (0 if stop == signal.SIGTERM else -signal.SIGKILL)
        _wait_for("app process exit", lambda: _process_gone(app_pid), server)
        assert _refused(server.origin)
        assert _refused(provider.group(1))
        if stop == signal.SIGTERM:
            assert "Traceback" not in server.output()


def test_ctrl_c_stops_fw_dev_and_its_app_process_without_a_traceback(tmp_path: Path) -> None:
    """Ctrl-C in a terminal signals the whole foreground process group: fw dev and its app."""
    root = _project(tmp_path)
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    log = tmp_path / "fw-dev.log"
    command = [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(port)]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            env=clean_env({"APP_ENV": "dev"}),
            cwd=root,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, as a shell gives a foreground job
        )
        try:
            server = DevServer(root, origin, log, process)
            _wait_for("answer", lambda: not _refused(origin), server)
            (app_pid,) = server.app_pids()
            os.killpg(process.pid, signal.SIGINT)
            assert process.wait(timeout=30) == 0
            _wait_for("app process exit", lambda: _process_gone(app_pid), server)
            assert "Traceback" not in server.output()
            assert "KeyboardInterrupt" not in server.output()
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
