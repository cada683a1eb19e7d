"""The access log: one JSON line per request on the ``fw.access`` logger (DESIGN 10.4).

``[observability.access_log] enabled = true`` turns it on (the ``config.prod.toml`` that ``fw
init`` writes does). Each line names the request by its route template, never by anything a
client sent beyond the method and the path::

    {"time":"2026-11-28T12:00:00.123Z","level":"info","logger":"fw.access","method":"GET",
     "route":"/orders/{id}","path":"/orders/7","status":200,"duration_ms":1.84,
     "request_id":"9f0c...","auth":"allowed"}

``route`` is ``"unmatched"`` when no route matched; ``auth`` is the outcome the authentication
middleware recorded (``allowed``, ``anonymous``, ``rejected``) or ``"none"`` when none decided.
The query string, headers, cookies and bodies are never logged: a sign-in's callback carries
the authorization code in its query, a bearer request its token in a header.

The line is the log record's message, so any handler an application configures writes it as
is, and it carries ``level`` and ``logger`` like every other line fw's JSON formatter
(:mod:`fw.operations.logsetup`) writes, which writes it unchanged.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import msgspec
from starlette.types import Scope

from fw.settings import AccessLogSettings

__all__ = ["ACCESS_LOGGER", "AccessLog", "AccessLogSettings", "access_log_hook", "iso_time"]

#: The logger every access line is written to.
ACCESS_LOGGER = "fw.access"
_encode = msgspec.json.Encoder().encode


_second: list[Any] = [-1, ""]  # the last whole second formatted, and its text


def iso_time(seconds: float) -> str:
    """A POSIX time as UTC ISO 8601 with milliseconds (``2026-11-28T12:00:00.123Z``)."""
    whole = int(seconds)
    if _second[0] != whole:  # formatted once a second, however many lines it holds
        _second[:] = [whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))]
    return f"{_second[1]}.{int((seconds - whole) * 1000):03d}Z"


class AccessLog:
    """The access log's :class:`~fw.operations.observer.RequestHook`.

    A line's record is made directly, not through ``Logger.info``, which would look up the
    caller's frame for every request; the fields ride along as ``record.fw_access`` for fw's
    formatters.
    """

    __slots__ = ("logger",)

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.logger = logger or logging.getLogger(ACCESS_LOGGER)

    def start(self, scope: Scope) -> object:
        return time.time()

    def finish(self, state: object, scope: Scope, status: int, duration: float) -> None:
        logger = self.logger
        if scope.get("fw.untracked") or not logger.isEnabledFor(logging.INFO):
            return
        decision = scope.get("fw.auth")
        fields: dict[str, Any] = {
            "time": iso_time(state if isinstance(state, float) else time.time() - duration),
            "level": "info",
            "logger": logger.name,
            "method": scope["method"],
            "route": scope.get("fw.route") or "unmatched",
            "path": scope["path"],
            "status": status,
            "duration_ms": round(duration * 1000, 3),
            "request_id": scope.get("fw.request_id"),
            "auth": decision[1] if decision else "none",
        }
        record = logging.LogRecord(logger.name, logging.INFO, "", 0, _encode(fields).decode(), None, None)
        record.fw_access = fields
        logger.handle(record)


def access_log_hook() -> AccessLog | None:
    """The access log's hook when ``[observability.access_log] enabled``, else ``None``
    (read from the parsed configuration; call it when the App is built)."""
    from fw.configuration import config

    return AccessLog() if config(AccessLogSettings).enabled else None
