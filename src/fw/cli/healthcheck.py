"""``fw healthcheck [--ready] [--timeout 3s]``: ask the running server whether it is alive (or ready).

For a container's health check without curl (Popcorn Web's ``healthcheck`` action): the command
reads the configuration as ``fw run`` does (the project's files, the environment, the options
given after its own), requests ``http://{server.host}:{server.port}{live_path}`` (with ``--ready``
the ``ready_path`` of ``[server.health]``) and exits 0 when it answers 200, 1 otherwise with one
line on stderr saying why. A server listening on every interface (``0.0.0.0``, ``::``) is asked
on the loopback address of the same family. Only the standard library's HTTP client is used, so
a check costs the interpreter's start and the project's import, nothing more.
"""

from __future__ import annotations

import http.client
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fw.generate.project import Project

#: How long the request may take when ``--timeout`` is not given.
DEFAULT_TIMEOUT = timedelta(seconds=3)
#: Where a server listening on every interface of a family is reached from the same host.
_LOOPBACK = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1", "[::]": "::1"}


class HealthcheckRefused(Exception):
    """Why the check failed, in one line. Always exit status 1, a usage error too: a container
    platform reads 1 as unhealthy, and Docker reserves 2."""


@dataclass
class HealthcheckRequest:
    ready: bool = False
    timeout: timedelta = DEFAULT_TIMEOUT
    #: Configuration options (``--server-port 9000``...), read as ``fw run`` reads them.
    configuration: list[str] = field(default_factory=list)


def parse_healthcheck_args(arguments: Sequence[str]) -> HealthcheckRequest:
    """``--ready``, ``--timeout 3s`` (or ``--timeout=3s``); anything else, and everything after
    ``--``, is a configuration option."""
    request = HealthcheckRequest()
    words = list(arguments)
    while words:
        word = words.pop(0)
        name, equals, value = word.partition("=")
        if word == "--":
            request.configuration.extend(words)
            break
        if word == "--ready":
            request.ready = True
        elif name == "--timeout":
            if not equals:
                value = words.pop(0) if words and not words[0].startswith("--") else ""
            request.timeout = parse_timeout(value)
        else:
            request.configuration.append(word)
    return request


def parse_timeout(text: str) -> timedelta:
    """A positive duration in fw's notation (``3s``, ``500ms``); anything else is a usage error."""
    from fw.configuration.duration import positive_duration

    timeout = positive_duration(text)
    if timeout is None:
        raise HealthcheckRefused(f'healthcheck --timeout needs a positive duration such as 3s, got "{text}"')
    return timeout


def loopback(host: str) -> str:
    """The address to ask for a server listening on ``host`` (a wildcard becomes loopback)."""
    host = host.strip()
    found = _LOOPBACK.get(host)
    if found is not None:
        return found
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def url_of(host: str, port: int, path: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def probe(host: str, port: int, path: str, timeout: float) -> tuple[int, bytes]:
    """GET ``path`` within ``timeout`` seconds in all: the status and (a bounded part of) the body."""
    deadline = time.monotonic() + timeout
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.connect()
        assert connection.sock is not None
        connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))
        connection.request("GET", path, headers={"Accept": "application/json", "Connection": "close"})
        response = connection.getresponse()
        return response.status, response.read(4096)
    finally:
        connection.close()


def _failing(body: bytes) -> str:
    """``redis timeout, jwks not_loaded`` from a readiness answer (its check names only)."""
    try:
        checks = json.loads(body).get("checks", {})
    except (ValueError, AttributeError):
        return ""
    if not isinstance(checks, dict):
        return ""
    return ", ".join(f"{name} {outcome}" for name, outcome in checks.items() if outcome != "ok")


def check(host: str, port: int, path: str, timeout: timedelta) -> None:
    """Return when the server answers 200; raise :class:`HealthcheckRefused` with why not."""
    address = loopback(host)
    url = url_of(address, port, path)
    seconds = timeout.total_seconds()
    try:
        status, body = probe(address, port, path, seconds)
    except TimeoutError:
        from fw.configuration.duration import format_duration

        raise HealthcheckRefused(f"{url} did not answer within {format_duration(timeout)}") from None
    except ConnectionRefusedError:
        raise HealthcheckRefused(f"nothing listens at {url} (connection refused)") from None
    except (OSError, http.client.HTTPException) as error:
        reason = getattr(error, "strerror", None) or type(error).__name__
        raise HealthcheckRefused(f"{url} could not be asked ({reason})") from None
    if status != 200:
        failing = _failing(body) if status == 503 else ""
        raise HealthcheckRefused(f"{url} answered {status}" + (f" (failing: {failing})" if failing else ""))


def run_healthcheck(
    project: Project | None, arguments: Sequence[str], *, import_app: Callable[[Project], object]
) -> int:
    """The command: read the configuration as ``fw run`` would, ask the server, exit 0 or 1.

    ``project`` is ``None`` outside a project (a container holding only the installed App).
    """
    try:
        request = parse_healthcheck_args(arguments)
        host, port, path = _target(project, request, import_app)
        check(host, port, path, request.timeout)
    except HealthcheckRefused as refusal:
        sys.stderr.write(f"fw: {refusal}\n")
        return 1
    return 0


def _target(
    project: Project | None, request: HealthcheckRequest, import_app: Callable[[Project], object]
) -> tuple[str, int, str]:
    """``server.host``, ``server.port`` and the path to ask, from the configuration.

    In a project the App is imported first, as ``fw run`` does (its configuration and load
    options are part of what the server read); anywhere else fw's own settings are read from
    the working directory and the environment.
    """
    import fw.operations.pillar
    from fw import configuration
    from fw.cli.devonly import parse_without_dev
    from fw.errors import ConfigError
    from fw.generate.project import ProjectError
    from fw.operations.health import health_settings
    from fw.settings import ServerSettings

    try:
        if project is not None:
            configuration.set_config_load_options(working_dir=project.root)
            if project.app:
                try:
                    import_app(project)
                except (ConfigError, ProjectError):
                    raise
                except Exception as error:
                    raise HealthcheckRefused(
                        f"healthcheck cannot import the App ({type(error).__name__}: {error})"
                    ) from None
        fw.operations.pillar.register()  # [server.health], whether or not the App's import declared it
        parse_without_dev(lambda: configuration.parse_config(request.configuration))
        listing = configuration.requested_template()
        if listing is not None:  # `fw healthcheck -- --help`: the configuration's own listing
            sys.stdout.write(listing)
            raise SystemExit(0)
        server = configuration.config(ServerSettings)
        health = health_settings()
    except (ConfigError, ProjectError) as error:
        raise HealthcheckRefused(f"healthcheck cannot read the configuration: {error}") from None
    if not health.enabled:
        raise HealthcheckRefused("server.health.enabled is false: the server has no health endpoints")
    return server.host, server.port, health.ready_path if request.ready else health.live_path
