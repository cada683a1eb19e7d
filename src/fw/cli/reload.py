"""``fw dev`` reloading on change: the app runs in a child process that fw dev replaces.

The parent process keeps what must outlive a reload (the development identity provider, so its
issuer URL, client registration and keys stay; the variables injected for it) and watches the
project with ``watchfiles``. A change to a Python source, a ``config*.toml``, a ``.env`` file or
``pyproject.toml`` starts a new app process (:mod:`fw.cli.appchild`) while the old one still
serves: the new one regenerates stale generated code (``fw generate``), imports the App, parses
the configuration, applies new migrations and builds the App, and only when all of that worked
does fw dev stop the old process and tell the new one to serve. A change that does not load (a
generation error, a syntax error, a refused configuration) is printed, and the last good app
keeps serving. Sessions live in the store, so a signed-in browser stays signed in across
reloads.

The first app process is started before the provider, so that its imports overlap the
provider's start; it is told to serve, with the environment to serve under (the provider's
variables), once the provider is settled, and then applies the migrations itself. Every app
process holds one end of a socket pair: when fw dev goes, however it goes, the app process sees
the end of the stream and stops, so none is left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from fw.codegen.imports import FOREIGN

#: How long an app process may take to stop after SIGTERM before it is killed.
STOP_GRACE_SECONDS = 5.0
#: How often the watch loop wakes without a change, to notice an app process that exited.
IDLE_CHECK_MS = 500
#: Folders whose files never make the app (besides hidden ones and :data:`FOREIGN`).
IGNORED_FOLDERS = frozenset({*FOREIGN, "build", "dist"})


def _say(message: str) -> None:
    sys.stderr.write(f"fw dev: {message}\n")


def watched_name(name: str) -> bool:
    """Whether a file so named is part of what the app is made of: its Python sources (not the
    ``_fw_*`` files ``fw generate`` writes), its configuration files and ``pyproject.toml``."""
    if name == ".env" or name.startswith(".env."):
        return True
    if name.startswith((".", "_fw_")):  # editor lock files, generated modules
        return False
    if name.endswith(".py"):
        return True
    return name == "pyproject.toml" or (name.startswith("config") and name.endswith(".toml"))


class ProjectFilter:
    """The ``watchfiles`` filter: project files :func:`watched_name` accepts, outside hidden
    folders (``.fw``, ``.git``, ``.venv``), caches, virtual environments and build output."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        prefix = Path(sys.prefix).resolve()
        self._environment = prefix if prefix.is_relative_to(self.root) else None

    def __call__(self, _change: object, path: str) -> bool:
        file = Path(path)
        if not file.is_relative_to(self.root):
            return False
        *folders, name = file.relative_to(self.root).parts
        if any(folder.startswith(".") or folder in IGNORED_FOLDERS for folder in folders):
            return False
        if self._environment is not None and file.is_relative_to(self._environment):
            return False
        return watched_name(name)


def describe(paths: Iterable[str], root: Path) -> str:
    """The changed files for one line: relative to the project, at most three named."""
    names = sorted({_relative(path, root) for path in paths})
    shown = ", ".join(names[:3])
    return shown if len(names) <= 3 else f"{shown} and {len(names) - 3} more"


def _relative(path: str, root: Path) -> str:
    file = Path(path)
    return file.relative_to(root).as_posix() if file.is_relative_to(root) else path


class AppProcess:
    """One app process (:mod:`fw.cli.appchild`) and the socket pair fw dev talks to it over."""

    def __init__(self, root: Path, args: Sequence[str], *, reload: bool) -> None:
        ours, theirs = socket.socketpair()
        stage = "reload" if reload else "first"
        command = [sys.executable, "-m", "fw.cli.appchild", str(root), str(theirs.fileno()), stage, *args]
        try:
            self._process = subprocess.Popen(command, pass_fds=[theirs.fileno()])
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._channel = ours

    def prepared(self, stop: threading.Event) -> bool:
        """Wait until the process says it loaded the new code; ``False`` when it exited instead
        (it printed why) or fw dev is stopping."""
        self._channel.settimeout(0.1)
        received = b""
        while not stop.is_set():
            try:
                data = self._channel.recv(64)
            except TimeoutError:
                continue
            except OSError:
                return False
            if not data:
                return False
            received += data
            if b"ready\n" in received:
                return True
        return False

    def serve(self, environment: Mapping[str, str]) -> None:
        """Tell the process to serve under ``environment`` (one that exited is noticed later)."""
        with contextlib.suppress(OSError):
            self._channel.sendall(json.dumps(dict(environment)).encode() + b"\n")

    def exit_status(self) -> int | None:
        return self._process.poll()

    def stop(self) -> None:
        """Stop the process (SIGTERM: uvicorn shuts the app down), killing it if it hangs."""
        self._channel.close()
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                grace = f"{STOP_GRACE_SECONDS:g}s"
                _say(f"the app process {self._process.pid} was still running {grace} after SIGTERM; killed")
                self._process.kill()
                self._process.wait()


class Reloader:
    """The app process that serves, the watch loop that replaces it, and their shutdown.

    When the first app process of the run exits by itself before any reload (a refused
    configuration, a failed migration or startup check, a port in use), fw dev exits with its
    status, as ``fw dev --no-reload`` and ``fw run`` do; once a change has been loaded, an app
    process that exits is reported and the next save starts a new one.
    """

    def __init__(self, root: Path, args: Sequence[str]) -> None:
        self.root = root.resolve()
        self.args = list(args)
        self._current = AppProcess(self.root, self.args, reload=False)
        self._replaced = False
        self._reported_exit = False
        self._status = 0

    def serve(self) -> int:
        """Let the first app process serve, then reload on change until SIGINT or SIGTERM; the
        exit status."""
        import watchfiles

        stop = threading.Event()
        previous = _on_signals(lambda _signal, _frame: stop.set())
        try:
            self._current.serve(os.environ)
            changes = watchfiles.watch(
                self.root,
                watch_filter=ProjectFilter(self.root),
                stop_event=stop,
                raise_interrupt=False,
                yield_on_timeout=True,
                rust_timeout=IDLE_CHECK_MS,
            )
            for changed in changes:
                if changed:
                    self._reload([path for _, path in changed], stop)
                else:
                    self._notice_exit(stop)
        finally:
            _restore(previous)
        return self._status

    def _reload(self, paths: list[str], stop: threading.Event) -> None:
        _say(f"{describe(paths, self.root)} changed; reloading")
        candidate = AppProcess(self.root, self.args, reload=True)
        if not candidate.prepared(stop):
            candidate.stop()
            if stop.is_set():
                return
            if self._current.exit_status() is None:
                _say("the change did not load (above); the last good app keeps serving")
            else:
                _say("the change did not load (above); fix it and save again")
            return
        self._current.stop()
        self._current = candidate
        self._replaced = True
        self._reported_exit = False
        candidate.serve(os.environ)

    def _notice_exit(self, stop: threading.Event) -> None:
        status = self._current.exit_status()
        if status is None or self._reported_exit or stop.is_set():
            return
        self._reported_exit = True
        if not self._replaced:
            self._status = status if status >= 0 else 128 - status
            stop.set()
        else:
            _say(f"the app exited (status {status}); save a change to start it again, Ctrl-C to quit")

    def close(self) -> None:
        self._current.stop()


#: What :func:`signal.signal` takes and returns: a function, ``SIG_DFL``/``SIG_IGN``, or ``None``.
_Handler = Callable[[int, FrameType | None], Any] | int | None


def _on_signals(handler: Callable[[int, FrameType | None], None]) -> dict[signal.Signals, _Handler]:
    """Install ``handler`` for SIGINT and SIGTERM; the handlers they had, to restore."""
    return {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM)}


def _restore(previous: dict[signal.Signals, _Handler]) -> None:
    for number, handler in previous.items():
        signal.signal(number, handler)


def reload_supported() -> bool:
    """Reloading hands the app process a socket by its descriptor, which needs POSIX."""
    return os.name == "posix"
