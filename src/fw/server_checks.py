"""Startup checks of ``[server]``: values uvicorn or the body limits cannot use are refused first.

Without them a port of 70000 or a host that names nothing reaches uvicorn, which fails with a
traceback after the summary has already said the configuration is fine. Here each one becomes a
:class:`fw.StartupError` naming the key, the value and the fix, raised by ``App.startup`` (so
``fw.run``'s preflight, any ASGI server's lifespan and ``fw doctor`` all refuse the same way).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket

from fw.configuration.duration import format_duration
from fw.errors import StartupError
from fw.settings import ServerSettings

MAX_PORT = 65535
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_HOST_FIX = "use an IP address (127.0.0.1, ::1, 0.0.0.0) or a host name this machine resolves (localhost)"


async def check_server(server: ServerSettings) -> None:
    """Raise :class:`fw.StartupError` for the first ``[server]`` value that cannot be served."""
    if not 0 <= server.port <= MAX_PORT:
        raise StartupError(
            "server.port", server.port, f"use a port from 0 to {MAX_PORT} (0 picks a free one)"
        )
    for name, example in (("max_request_body", "10485760 (10 MiB)"), ("cbor_max_body", "1048576 (1 MiB)")):
        limit = getattr(server, name)
        if limit <= 0:
            raise StartupError(f"server.{name}", limit, f"use a positive number of bytes, such as {example}")
    if server.body_timeout.total_seconds() < 0:
        raise StartupError(
            "server.body_timeout",
            format_duration(server.body_timeout),
            "use a duration such as 30s (0s: no limit)",
        )
    await check_host(server.host)


def host_syntax_problem(host: str) -> str | None:
    """Why ``host`` is neither an IP literal nor a well-formed DNS name, or ``None``."""
    if not host:
        return "is empty: " + _HOST_FIX
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if host.startswith("[") and host.endswith("]"):
        return "write an IPv6 address without brackets (::1)"
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels) or labels[-1].isdigit():
        return "is not an IP address or a host name: " + _HOST_FIX
    return None


async def check_host(host: str) -> None:
    """An IP literal is taken as written; a name must resolve here, as uvicorn will resolve it."""
    problem = host_syntax_problem(host)
    if problem:
        raise StartupError("server.host", host, problem)
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    try:
        await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise StartupError("server.host", host, f"cannot be resolved ({error}); {_HOST_FIX}") from None
