"""Text to typed value, shared by ``default`` markers, environment variables and options.

The same rules everywhere keep one mental model: a value that is valid in ``.env`` is valid on
the command line and in a ``default`` marker.
"""

from __future__ import annotations

from datetime import timedelta

from fw.configuration.duration import format_duration, parse_duration
from fw.configuration.quoting import quoted
from fw.configuration.schema import Kind, Value

_TRUE = {"1", "t", "T", "true", "TRUE", "True"}
_FALSE = {"0", "f", "F", "false", "FALSE", "False"}


class BadValue(ValueError):
    """The text does not parse as the field's kind; the message is ready for a ConfigError."""


def parse_bool(text: str) -> bool:
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise BadValue(f"invalid bool {quoted(text)} (use true or false)")


#: Integers are 64-bit, as in every other fw implementation and in TOML itself.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


def parse_int(text: str) -> int:
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body.isascii() or not body.isdigit():
        raise BadValue(f"invalid int {quoted(text)}")
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise BadValue(f"invalid int {quoted(text)}: out of the 64-bit range")
    return value


def split_list(text: str) -> list[str]:
    """Comma-separated list; surrounding spaces trimmed; an empty text is an empty list."""
    if not text.strip():
        return []
    return [item.strip() for item in text.split(",")]


def parse_text(kind: Kind, text: str) -> Value:
    """Parse one text value for a field of ``kind`` (lists split on commas)."""
    if kind == "str":
        return text
    if kind == "bool":
        return parse_bool(text)
    if kind == "int":
        return parse_int(text)
    if kind == "duration":
        try:
            return parse_duration(text)
        except ValueError as error:
            raise BadValue(str(error)) from None
    return split_list(text)


def parse_scalar(kind: Kind, text: str) -> Value:
    """Like :func:`parse_text`, but a list kind takes ``text`` as one element (repeated options)."""
    if kind == "list":
        return [text]
    return parse_text(kind, text)


def display(value: Value) -> str:
    """The text form of a value, as the summary and the templates print it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, timedelta):
        return format_duration(value)
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def is_off(value: Value, falsy: Value | None) -> bool:
    """Off for ``dependon``: empty string, false, empty list, or the declared falsy value."""
    if value is False or value == "" or value == []:
        return True
    return falsy is not None and value == falsy  # by value: 0s and 0ms are the same duration
