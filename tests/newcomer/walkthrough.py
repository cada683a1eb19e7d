"""What a newcomer does, step by step: fw's README set-up line, then the project's README.

fw's README gives one set-up line (make a virtual environment, install fw, ``fw init`` a project
beside the checkout, install it, ``fw dev``). The newcomer types it with two differences a
release makes: fw is installed as ``pip install fw-web`` (from the freshly built wheel, which
pip finds on ``PIP_FIND_LINKS``) instead of from a checkout, and ``fw init`` gets the sign-in
mode under test. Then the generated project's README takes over: every command of its shell
blocks outside the deployment sections, in order, ``fw dev`` left running as in a second
terminal.
"""

from __future__ import annotations

import contextlib
import re
import socket
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from newcomer.readme import code_lines, fenced_commands, is_command, segments
from newcomer.terminal import CommandFailed, Terminal

REPO = Path(__file__).resolve().parents[2]
#: README sections a newcomer does not follow on the way to a running project.
_LATER = re.compile(r"deploy|production|release|upgrad", re.IGNORECASE)
_ASSIGNED = re.compile(r"^(\w+)=\$\((.*)\)$")
_CHECKOUT_INSTALL = re.compile(r"(?:-e\s+)?(['\"]?)\.(?:\[[^\]]*\])?\1\s*$")


class ReadmeProblem(AssertionError):
    """The README does not give a newcomer what this step needs: the message says what."""


def fw_setup_line() -> str:
    """fw's README set-up line: the first code line that runs ``fw init``."""
    for line in code_lines((REPO / "README.md").read_text()):
        if any(is_command(segment, "fw", "init") for segment in segments(line)):
            return line
    raise ReadmeProblem("fw's README has no set-up line running `fw init`")


def as_release(segment: str) -> str:
    """fw installed from a checkout (``pip install -e .``) as from the registry: ``pip install fw-web``."""
    if "pip install" not in segment:
        return segment
    return _CHECKOUT_INSTALL.sub("fw-web", segment)


def follow_fw_readme(terminal: Terminal, init_option: str) -> Path:
    """Type fw's set-up line up to its ``fw dev`` (the project's README has that step too);
    the project folder it leaves the terminal in."""
    initialised = False
    for segment in segments(fw_setup_line()):
        if is_command(segment, "fw", "dev"):
            break
        if not initialised:
            segment = as_release(segment)
        if is_command(segment, "fw", "init"):
            segment = f"{segment} {init_option}"
            initialised = True
        terminal.check(segment, timeout=600)
    project = terminal.cwd
    if not (project / "pyproject.toml").is_file():
        raise ReadmeProblem(f"fw's set-up line does not leave the terminal in the new project (in {project})")
    return project


@dataclass
class Followed:
    """What following the project's README gave: the address it says to browse, what each
    command it typed printed, and the running ``fw dev``'s log."""

    origin: str
    port: int
    printed: dict[str, str] = field(default_factory=dict)
    log: Path | None = None

    def summary(self) -> str:
        """What each command printed (the end of it), and the end of ``fw dev``'s log."""
        lines = [f"$ {typed}\n{output[-300:]}" for typed, output in self.printed.items()]
        if self.log is not None:
            lines.append(f"fw dev's log:\n{self.log.read_text(errors='replace')[-2000:]}")
        return "\n".join(lines)


def project_readme(project: Path) -> str:
    readme = project / "README.md"
    if not readme.is_file():
        raise ReadmeProblem(f"fw init wrote no README.md in {project}")
    return readme.read_text()


def server_port(project: Path) -> int:
    """``server.port`` of the project's development configuration (fw's default, 8000, if unset)."""
    settings = tomllib.loads((project / "config.dev.toml").read_text())
    return int(settings.get("server", {}).get("port", 8000))


def protected_path(project: Path) -> str:
    """The first literal path of ``auth.protection.include``: where signing in is needed."""
    settings = tomllib.loads((project / "config.dev.toml").read_text())
    included = settings.get("auth", {}).get("protection", {}).get("include", [])
    literal = [path for path in included if "{" not in path and "*" not in path]
    if not literal:
        raise ReadmeProblem(f"config.dev.toml protects no literal path: {included}")
    return str(literal[0])


def browse_origin(readme: str, port: int) -> str:
    """The address the README tells a person to open: its first loopback URL on ``port``."""
    found = re.search(rf"https?://(?:localhost|127\.0\.0\.1):{port}\b", readme)
    if found is None:
        raise ReadmeProblem(f"the project's README names no address to browse (http://localhost:{port})")
    return found.group(0)


def wait_until_free(port: int, timeout: float = 60) -> None:
    """``fw dev`` listens on the README's port, as a person's would: wait for another user of it."""
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"port {port} (the project's server.port) stayed in use for {timeout:.0f} s"
                    ) from None
        time.sleep(0.5)


@contextlib.contextmanager
def follow_project_readme(terminal: Terminal, project: Path, logs: Path) -> Iterator[Followed]:
    """Type every command of the project's README outside its deployment sections, ``fw dev``
    left running; yields while ``fw dev`` still serves."""
    readme = project_readme(project)
    commands = [command for command in fenced_commands(readme) if not _LATER.search(command.section)]
    if not commands:
        raise ReadmeProblem("the project's README has no ```sh block of commands")
    port = server_port(project)
    followed = Followed(browse_origin(readme, port), port)
    with contextlib.ExitStack() as running:
        for command in commands:
            for segment in segments(command.text):
                if is_command(segment, "fw", "dev"):
                    if followed.log is not None:
                        raise ReadmeProblem("the project's README starts `fw dev` twice")
                    wait_until_free(port)
                    followed.log = running.enter_context(
                        terminal.serving(
                            segment, ready_url=f"http://127.0.0.1:{port}/", log=logs / "fw-dev.log"
                        )
                    )
                elif is_command(segment, "pytest") or is_command(segment, "python", "-m", "pytest"):
                    passed(terminal, segment)
                else:
                    followed.printed[segment] = terminal.check(segment, timeout=600)
        if followed.log is None:
            raise ReadmeProblem("the project's README never starts `fw dev`")
        yield followed


def passed(terminal: Terminal, command: str) -> None:
    """Run the project's tests as the README says: they pass, with no warning."""
    result = terminal.run(command, timeout=600)
    summary = (result.stdout.strip().splitlines() or [""])[-1]
    if result.returncode != 0 or " passed" not in summary or "warning" in summary:
        raise CommandFailed(
            f"`{command}` in {terminal.cwd}: exit {result.returncode}, {summary!r}\n"
            f"{result.stdout[-3000:]}\n{result.stderr[-2000:]}"
        )


def printed_by(followed: Followed, terminal: Terminal, *command: str) -> str:
    """What the README's ``fw ...`` command printed (``printed_by(f, t, "fw", "token")``), typed
    on its own or into a variable (``TOKEN=$(fw token)``, whose value the terminal keeps)."""
    for typed, output in followed.printed.items():
        if is_command(typed, *command):
            return output
        assigned = _ASSIGNED.match(typed)
        if assigned and is_command(assigned.group(2), *command):
            return terminal.env.get(assigned.group(1), "")
    raise ReadmeProblem(f"the project's README never runs `{' '.join(command)}`")
