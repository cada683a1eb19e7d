"""Errors that stop a program before it serves: bad configuration, refused startup, bad generation.

They carry the key (or file:line) and the fix, because the person reading them is deploying or
building, and a traceback would only bury that one line.
"""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration value could not be loaded: names the key, where the value came from, and why."""

    def __init__(self, key: str, source: str, reason: str) -> None:
        self.key = key
        self.source = source
        self.reason = reason
        where = f" (from {source})" if source else ""
        super().__init__(f"{key}: {reason}{where}" if key else f"{reason}{where}")


class StartupError(Exception):
    """The process refuses to start: names the key, the value received and the fix."""

    def __init__(self, key: str, value: object, fix: str) -> None:
        self.key = key
        self.value = value
        self.fix = fix
        super().__init__(f"{key} = {value!r}: {fix}" if key else fix)


class GenerationError(Exception):
    """``fw generate`` found something it cannot turn into code; points at file:line."""

    def __init__(self, file: str, line: int, message: str) -> None:
        self.file = file
        self.line = line
        self.message = message
        super().__init__(f"{file}:{line}: {message}")
