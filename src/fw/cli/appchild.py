"""The app process that ``fw dev`` restarts on change (:mod:`fw.cli.reload` starts it).

``python -m fw.cli.appchild ROOT FD STAGE [CONFIGURATION OPTIONS]``, never typed by a person: FD
is this process's end of the socket pair fw dev holds; STAGE is ``first`` or ``reload``.

It gets ready in two steps, so that a change that does not load never costs the developer the
app that is serving. First, while the previous process still serves, it regenerates stale
generated code, imports the App, parses the configuration, applies new migrations and builds the
App, then says ``ready``. The first process of a run starts while fw dev itself is still
starting the development provider, whose variables the configuration may name, so it only
imports (its imports overlap fw dev's start), and parses and migrates once told to serve. That
message carries the environment to serve under, the provider's variables included; then it runs
the App as ``fw run`` does. When the stream from fw dev ends (fw dev stopped, was killed, or
replaces this process) it exits before serving, or stops as on SIGTERM while serving, so no app
process outlives fw dev.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from fw.app import App
    from fw.generate.project import Project

STAGES = ("first", "reload")


def _say(message: str) -> None:
    sys.stderr.write(f"fw dev: {message}\n")


class _Channel:
    """This process's end of the socket pair: ``ready`` out; the environment to serve under, then
    the stream's end, in."""

    def __init__(self, channel: socket.socket) -> None:
        self._channel = channel
        self._decided = threading.Event()
        self._environment: dict[str, str] | None = None
        threading.Thread(target=self._listen, name="fw-dev-channel", daemon=True).start()

    def _listen(self) -> None:
        try:
            self._environment = _environment(self._channel.makefile("rb").readline())
        except OSError:
            self._environment = None
        finally:
            self._decided.set()
        if self._environment is None:
            return
        try:
            while self._channel.recv(64):  # nothing more is sent: this returns when fw dev is gone
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    def ready(self) -> dict[str, str] | None:
        """Say the code loaded; the environment to serve under, or ``None``: exit instead."""
        try:
            self._channel.sendall(b"ready\n")
        except OSError:
            return None
        self._decided.wait()
        return self._environment


def _environment(line: bytes) -> dict[str, str] | None:
    """The ``serve`` message: a JSON object of environment variables (``None``: none came)."""
    try:
        decoded = json.loads(line) if line else None
    except ValueError:
        return None
    if not isinstance(decoded, dict):
        return None
    return {str(name): str(value) for name, value in cast(dict[object, object], decoded).items()}


def _where(error: BaseException, root: Path) -> str:
    """``file:line: what`` for an error in the project's own code, as a one-line report."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}: syntax error: {error.msg}"
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if _inside(frame.filename, root)]
    what = f"{type(error).__name__}: {error}"
    return f"{frames[-1].filename}:{frames[-1].lineno}: {what}" if frames else what


def _inside(filename: str, root: Path) -> bool:
    return Path(filename).resolve().is_relative_to(root)


def _prepare(root: Path, args: Sequence[str], *, stage: str) -> App | None:
    """Regenerate what is stale and import the App; on a reload also parse the configuration,
    apply new migrations and build the App (its routes, the pillars' middleware): what serving
    needs that can be done while another process still serves. ``None``, after printing why,
    when any of it fails."""
    from fw import configuration
    from fw.cli import _the_app
    from fw.generate import GenerationFailed, regenerate_if_stale
    from fw.generate.project import load_project

    try:
        project = load_project(root)
        configuration.set_config_load_options(working_dir=project.root)
        reason, written = regenerate_if_stale(project)
        if reason is not None:
            _say(f"generated code checked ({reason})")
        for path in written:
            _say(f"regenerated {path.relative_to(project.root)}")
        app = _the_app(project)
        # Imported now, not once told to serve: what every fw dev app process needs.
        import uvicorn  # noqa: F401

        import fw.rdb.migrate  # noqa: F401

        if stage == "reload":
            _configure(project, args, quiet=True)
            app.build()
    except GenerationFailed as failure:
        for error in failure.errors:
            sys.stderr.write(f"{error}\n")
        return None
    except Exception as error:
        _report(error, root)
        return None
    return app


def _configure(project: Project, args: Sequence[str], *, quiet: bool) -> None:
    """Parse the configuration and apply pending migrations (printing the revisions applied,
    and unless ``quiet`` that each chain is up to date), as fw dev does before serving."""
    from fw import configuration
    from fw.rdb.migrate import application_chain, upgrade

    configuration.parse_config(list(args))
    chain = application_chain(project.root)
    lines = asyncio.run(upgrade(application=chain))
    # upgrade's lines: one per applied revision, then one "up to date" line per chain.
    for line in lines[: len(lines) - (1 if chain is None else 2)] if quiet else lines:
        _say(line)


def _report(error: Exception, root: Path) -> None:
    """One line for what stopped the app from loading: fw's own refusal, or the place in the
    project's code that raised."""
    from fw.errors import ConfigError, StartupError
    from fw.generate.project import ProjectError

    if isinstance(error, (ProjectError, ConfigError, StartupError)):
        sys.stderr.write(f"fw: {error}\n")
    else:
        _say(f"cannot load the app: {_where(error, root.resolve())}")


def main(argv: Sequence[str]) -> int:
    """Prepare, say ready, serve when told; the exit status (1: the new code did not load)."""
    if len(argv) < 3 or not argv[1].isdigit() or argv[2] not in STAGES:
        sys.stderr.write("fw: python -m fw.cli.appchild is started by fw dev, not by hand\n")
        return 2
    root, descriptor, stage, *args = argv
    from fw.pillars import install

    install()  # fw's own pillars judge the configuration parsed below, as under fw.run
    channel = _Channel(socket.socket(fileno=int(descriptor)))
    try:
        app = _prepare(Path(root), args, stage=stage)
        if app is None:
            return 1
        environment = channel.ready()
        if environment is None:
            return 0
        os.environ.clear()
        os.environ.update(environment)
        if stage == "first":
            from fw.generate.project import load_project

            try:
                _configure(load_project(Path(root)), args, quiet=False)
            except Exception as error:
                _report(error, Path(root))
                return 1
        from fw.app import run

        run(app, args)
    except KeyboardInterrupt:  # Ctrl-C in the terminal reaches this process as well as fw dev
        return 130
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
