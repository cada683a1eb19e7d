"""Errors that stop a program before it serves: bad configuration, refused startup, bad generation.

They carry the key (or file:line) and the fix, because the person reading them is deploying or
building, and a traceback would only bury that one line. That line is printed, logged and sent to
the ASGI server, so a URL in it never shows its user information (:mod:`fw.userinfo`): a refused
``redis://default:PASSWORD@host/14`` reads ``redis://*****@host/14``.
"""

from __future__ import annotations

from typing import Any

from fw.userinfo import has_userinfo, mask_userinfo, scrub


class ConfigError(Exception):
    """A configuration value could not be loaded: names the key, where the value came from, and why."""

    def __init__(self, key: str, source: str, reason: str) -> None:
        self.key = key
        self.source = source
        self.reason = reason = scrub(reason)
        where = f" (from {source})" if source else ""
        super().__init__(f"{key}: {reason}{where}" if key else f"{reason}{where}")


class StartupError(Exception):
    """The process refuses to start: names the key, the value received and the fix.

    ``value`` stays as received; the message shows a URL in it (or in ``fix``) with its user
    information masked.
    """

    def __init__(self, key: str, value: object, fix: str) -> None:
        self.key = key
        self.value = value
        self.fix = fix = scrub(fix)
        super().__init__(f"{key} = {_shown(value)!r}: {fix}" if key else fix)


class GenerationError(Exception):
    """``fw generate`` found something it cannot turn into code; points at file:line."""

    def __init__(self, file: str, line: int, message: str) -> None:
        self.file = file
        self.line = line
        self.message = message
        super().__init__(f"{file}:{line}: {message}")


def _shown(value: object) -> Any:
    """``value`` as a message quotes it: a URL carrying user information (alone or in a list) masked."""
    if isinstance(value, str):
        return mask_userinfo(value) if has_userinfo(value) else value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [_shown(item) for item in value]
    return value
