"""fw's own logging: how ``fw run`` and ``fw dev`` write what fw, uvicorn and the application log.

Left alone, Python sends fw's lines to its last-resort handler (no time, level or logger, and
nothing below WARNING, so "sign-in rejected" was lost). :func:`configure_logging` sets up the
root logger the way the startup summary writes: on a terminal, one readable line per event
(time, level, logger, message, request ID); anywhere else (a container, a pipe, a file) one JSON
object per line with ``time``, ``level``, ``logger``, ``message`` and ``request_id``, and the
traceback, if any, inside the object (``exception``). Every event is one line: a message's own
line breaks and a traceback are escaped in JSON, and indented under the event for people.

An application keeps control of its logging: fw configures only when the root logger has no
handler by the time the server starts, so an application that calls
``logging.config.dictConfig`` (or ``basicConfig``) when its module is imported is left exactly
as it configured itself. :class:`RequestIdFilter` and :class:`JsonFormatter` are public for
such a configuration.

Whatever is configured, no query value reaches a log line through uvicorn's access logger (the
sign-in callback carries the authorization code in its query): fw filters it, and turns
uvicorn's line off altogether when fw's own access log is on.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import unicodedata
from collections.abc import Mapping
from typing import Any, TextIO, TypedDict

from fw.operations.accesslog import ACCESS_LOGGER, iso_time
from fw.operations.observer import current_request_id

__all__ = [
    "HumanFormatter",
    "JsonFormatter",
    "QueryValuesDropped",
    "RequestIdFilter",
    "UvicornLogging",
    "configure_logging",
    "drop_query_values",
]

#: The name of the handler fw installs on the root logger (so a second call replaces it).
HANDLER_NAME = "fw"
#: Libraries whose INFO lines name full URLs (query strings included): kept at WARNING.
_CHATTY = ("httpx", "httpx2", "httpcore")
_INDENT = "    "


class UvicornLogging(TypedDict):
    """The ``uvicorn.run`` keyword arguments that go with fw's logging."""

    log_config: None
    access_log: bool


class RequestIdFilter(logging.Filter):
    """Gives every record a ``request_id`` attribute: the ID of the request being served (set by
    :class:`~fw.operations.observer.RequestObserver`), or ``None``; usable as ``%(request_id)s``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = current_request_id()
        return True


def drop_query_values(target: str) -> str:
    """``target`` with every query value removed, names kept (``/cb?code=&state=``)."""
    path, mark, query = target.partition("?")
    if not mark:
        return target
    names = [part.partition("=")[0] for part in query.split("&")]
    return f"{path}?{'&'.join(f'{name}=' for name in names)}"


class QueryValuesDropped(logging.Filter):
    """On ``uvicorn.access``: the request target's query values removed before any handler sees it
    (uvicorn logs ``path?query`` as one of the record's arguments)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(isinstance(arg, str) and "?" in arg for arg in args):
            record.args = tuple(drop_query_values(arg) if isinstance(arg, str) else arg for arg in args)
        elif isinstance(record.msg, str) and "?" in record.msg and not args:
            record.msg = " ".join(drop_query_values(word) for word in record.msg.split(" "))
        return True


def _request_id(record: logging.LogRecord) -> str | None:
    found = getattr(record, "request_id", None)
    return found if isinstance(found, str) else current_request_id()


def _access_fields(record: logging.LogRecord) -> Mapping[str, Any] | None:
    fields = getattr(record, "fw_access", None)
    return fields if isinstance(fields, dict) and record.name == ACCESS_LOGGER else None


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line: ``time`` (UTC, ISO 8601), ``level`` (lower case),
    ``logger``, ``message``, ``request_id`` (``null`` outside a request), and ``exception`` /
    ``stack`` when the record carries them. An access record's message is already such an
    object (with the access fields in place of ``message``) and is written as it is."""

    def format(self, record: logging.LogRecord) -> str:
        if _access_fields(record) is not None:
            return record.getMessage()  # already this shape, on one line
        document = {
            "time": iso_time(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": _request_id(record),
        }
        if record.exc_info:
            document["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            document["exception"] = record.exc_text
        if record.stack_info:
            document["stack"] = self.formatStack(record.stack_info)
        return json.dumps(document, separators=(",", ":"), default=str)


def _shown(text: str) -> str:
    """Control and format characters (ANSI escapes, bidi overrides) as escapes, line breaks kept."""
    if text.isprintable():
        return text
    return "".join(
        char
        if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cf")
        else char.encode("unicode_escape").decode()
        for char in text
    )


class HumanFormatter(logging.Formatter):
    """One readable line per record for a terminal: ``12:00:01.234 INFO fw.auth: message [id]``;
    a multi-line message or a traceback continues on indented lines under it."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created)) + f".{int(record.msecs):03d}"
        access = _access_fields(record)
        if access is not None:
            message = (
                f"{access.get('method')} {access.get('path')} {access.get('status')} "
                f"{access.get('duration_ms')}ms route={access.get('route')} auth={access.get('auth')}"
            )
            request_id = access.get("request_id")
        else:
            message = record.getMessage()
            request_id = _request_id(record)
        head = f"{stamp} {record.levelname:<7} {record.name}: "
        lines = _shown(message).split("\n")
        if request_id:
            lines[0] += f"  [{request_id}]"
        if record.exc_info:
            lines += self.formatException(record.exc_info).split("\n")
        elif record.exc_text:
            lines += record.exc_text.split("\n")
        if record.stack_info:
            lines += self.formatStack(record.stack_info).split("\n")
        return head + lines[0] + "".join(f"\n{_INDENT}{line}" for line in lines[1:] if line)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _access_log_enabled() -> bool:
    from fw.operations.accesslog import access_log_hook

    return access_log_hook() is not None


def configure_logging(
    *, stream: TextIO | None = None, access_log: bool | None = None, human: bool | None = None
) -> UvicornLogging:
    """Set up logging for ``fw run`` / ``fw dev`` and say how uvicorn should log along with it.

    Call it once configuration is parsed, before the server starts. When the root logger has no
    handler (the application configured nothing), one handler writing to ``stream`` (standard
    error) is installed on it, at INFO: human lines when the stream is a terminal (``human``
    overrides), JSON lines otherwise. A handler fw installed earlier is replaced; any other
    handler means the application took over, and fw adds none. ``access_log`` is
    ``[observability.access_log] enabled`` unless given.

    The answer goes to ``uvicorn.run(...)``: uvicorn installs no logging configuration of its own
    (its lines reach the root logger like everyone's), and its access line is off while fw's
    access log is on.
    """
    uvicorn_access = logging.getLogger("uvicorn.access")
    if not any(isinstance(found, QueryValuesDropped) for found in uvicorn_access.filters):
        uvicorn_access.addFilter(QueryValuesDropped())
    root = logging.getLogger()
    ours = [handler for handler in root.handlers if handler.get_name() == HANDLER_NAME]
    if len(ours) == len(root.handlers):
        for handler in ours:
            root.removeHandler(handler)
        out = stream or sys.stderr
        handler = logging.StreamHandler(out)
        handler.set_name(HANDLER_NAME)
        readable = _is_terminal(out) if human is None else human
        handler.setFormatter(HumanFormatter() if readable else JsonFormatter())
        handler.addFilter(RequestIdFilter())
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        for name in _CHATTY:
            library = logging.getLogger(name)
            if library.level == logging.NOTSET:
                library.setLevel(logging.WARNING)
    enabled = _access_log_enabled() if access_log is None else access_log
    return {"log_config": None, "access_log": not enabled}
