"""A person's terminal: commands typed one after another into bash, every one bounded.

Each command runs in a fresh ``bash -c`` that then records its working folder and environment,
and the next command starts from them, so ``cd shop`` and ``. .venv/bin/activate`` carry over
as they do in a shell a person keeps open. A server (``fw dev``) runs as in a second terminal:
started in a session of its own, so stopping it stops its reloader's children too.

The terminal starts clean: no variable of fw's configuration, no virtual environment and no
``PYTHONPATH`` from the test run, and the checkout's own ``.venv`` off the ``PATH``; pip finds
fw-web in the folder of freshly built distributions (``PIP_FIND_LINKS``), as a release on the
registry would be found.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

_CONFIG_PREFIXES = ("AUTH_", "SESSION_", "MIDDLEWARE_", "SERVER_", "APP_ENV", "FW_")
_PYTHON_VARIABLES = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX", "PYTEST_", "COV_")


def clean_environment(find_links: Path) -> dict[str, str]:
    """The test run's environment as a new shell would have it, with pip pointed at ``find_links``."""
    own_venv = str(Path(sys.prefix) / "bin")
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(_CONFIG_PREFIXES) and not name.startswith(_PYTHON_VARIABLES)
    }
    env["PATH"] = os.pathsep.join(
        part for part in os.environ.get("PATH", "").split(os.pathsep) if part and part != own_venv
    )
    env["PIP_FIND_LINKS"] = " ".join(filter(None, [str(find_links), os.environ.get("PIP_FIND_LINKS", "")]))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


class CommandFailed(AssertionError):
    """A command a README gives exited non-zero: the message names it and shows its output."""


@dataclass
class Terminal:
    cwd: Path
    env: dict[str, str]
    #: Every command typed, with its folder: what a failure message shows.
    history: list[str] = field(default_factory=list)

    def run(self, command: str, *, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Type ``command``; its result. The folder and environment it leaves carry over."""
        self.history.append(f"{self.cwd}$ {command}")
        with tempfile.TemporaryDirectory(prefix="terminal-") as state:
            folder, environment = Path(state, "cwd"), Path(state, "env")
            # set -a: a variable the command assigns (TOKEN=$(fw token)) stays for the next one.
            script = (
                f"set -a\n{command}\n__status=$?\n"
                f"pwd > {shlex.quote(str(folder))}\nenv -0 > {shlex.quote(str(environment))}\n"
                "exit $__status\n"
            )
            try:
                result = subprocess.run(
                    ["bash", "-c", script],
                    cwd=self.cwd,
                    env=self.env,
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    stdin=subprocess.DEVNULL,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise CommandFailed(
                    f"`{command}` did not finish within {timeout:.0f} s\n{self.transcript()}"
                ) from None
            if folder.exists():
                self.cwd = Path(folder.read_text().strip())
            if environment.exists():
                pairs = (item.partition("=") for item in environment.read_text().split("\0") if "=" in item)
                self.env = {name: value for name, _, value in pairs if not name.startswith("BASH_FUNC_")}
                self.env.pop("__status", None)
        return result

    def check(self, command: str, *, timeout: float = 300) -> str:
        """Type ``command``, which must succeed; what it printed on standard output."""
        result = self.run(command, timeout=timeout)
        if result.returncode != 0:
            raise CommandFailed(
                f"`{command}` (in {self.cwd}) exited with {result.returncode}:\n"
                f"{_tail(result.stdout)}\n{_tail(result.stderr)}\n{self.transcript()}"
            )
        return result.stdout

    def transcript(self) -> str:
        return "commands typed so far:\n" + "\n".join(f"  {line}" for line in self.history)

    @contextlib.contextmanager
    def serving(self, command: str, *, ready_url: str, log: Path, timeout: float = 120) -> Iterator[Path]:
        """Run ``command`` as in a second terminal until the block ends; yields its log once
        ``ready_url`` answers (any status)."""
        self.history.append(f"{self.cwd}$ {command}   (left running)")
        with log.open("wb") as output:
            process = subprocess.Popen(
                ["bash", "-c", f"exec {command}"],
                cwd=self.cwd,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                deadline = time.monotonic() + timeout
                while True:
                    if process.poll() is not None:
                        raise CommandFailed(
                            f"`{command}` exited with {process.returncode} before serving {ready_url}:\n"
                            f"{_tail(log.read_text(errors='replace'))}\n{self.transcript()}"
                        )
                    try:
                        httpx2.get(ready_url, timeout=2)
                        break
                    except httpx2.HTTPError:
                        if time.monotonic() > deadline:
                            raise CommandFailed(
                                f"`{command}` did not answer at {ready_url} within {timeout:.0f} s:\n"
                                f"{_tail(log.read_text(errors='replace'))}"
                            ) from None
                        time.sleep(0.2)
                yield log
            finally:
                _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server and what it started (its own process group), as Ctrl-C would."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):  # children left behind by a server that exited
        os.killpg(process.pid, signal.SIGKILL)


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])
