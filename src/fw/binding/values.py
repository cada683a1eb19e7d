"""Value helpers generated binders call: request sources, scalar conversion and format rules.

Converters return :data:`BAD` instead of raising, so a binder collects every field's failure in
one pass and raises a single :class:`fw.BindError` at the end.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from datetime import date, datetime, time
from typing import Any, Final
from urllib.parse import unquote_plus

from starlette.types import Scope

from fw.binding.types import RawJSON


class _Bad:
    __slots__ = ()

    def __repr__(self) -> str:
        return "BAD"


#: Returned by a converter for a value it cannot convert.
BAD: Final[Any] = _Bad()

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1
_INT_TEXT = re.compile(r"[+-]?[0-9]{1,19}")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_BOOL_TEXT: Final = {
    "1": True, "t": True, "T": True, "true": True, "True": True, "TRUE": True, "on": True,
    "0": False, "f": False, "F": False, "false": False, "False": False, "FALSE": False, "off": False,
}  # fmt: skip


# Request sources -------------------------------------------------------------------------------
def query_of(scope: Scope) -> dict[str, list[str]]:
    """Every query value by name, in order (a name may repeat); decoded like ``parse_qsl``."""
    values: dict[str, list[str]] = {}
    raw = scope.get("query_string", b"")
    if not raw:
        return values
    text = raw.decode("latin-1")
    escaped = "%" in text or "+" in text
    for piece in text.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        if escaped:
            name, value = unquote_plus(name), unquote_plus(value)
        if name in values:
            values[name].append(value)
        else:
            values[name] = [value]
    return values


def header_values(headers: list[tuple[bytes, bytes]], name: bytes) -> list[str] | None:
    """Every value of one header (``name`` lower-cased), or ``None`` when it is absent."""
    found: list[str] | None = None
    for key, value in headers:
        if key == name:
            if found is None:
                found = [value.decode("latin-1")]
            else:
                found.append(value.decode("latin-1"))
    return found


def cookies_of(scope: Scope) -> dict[str, list[str]]:
    """Every cookie value by name across all ``Cookie`` headers; repeats are kept."""
    values: dict[str, list[str]] = {}
    for name, header in scope["headers"]:
        if name != b"cookie":
            continue
        for chunk in header.decode("latin-1").split(";"):
            key, sep, value = chunk.partition("=")
            if not sep:
                continue
            key = key.strip()
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            values.setdefault(key, []).append(value)
    return values


# Scalar conversion -----------------------------------------------------------------------------
def int_text(text: str) -> Any:
    if _INT_TEXT.fullmatch(text) is None:
        return BAD
    number = int(text)
    return number if INT_MIN <= number <= INT_MAX else BAD


def int_json(value: Any) -> Any:
    """A JSON integer; ``15.0`` counts, as JSON Schema's ``integer`` says it does."""
    kind = type(value)
    if kind is int:
        return value if INT_MIN <= value <= INT_MAX else BAD
    if kind is float and value.is_integer() and INT_MIN <= value <= INT_MAX:
        return int(value)
    return BAD


def float_text(text: str) -> Any:
    if _FLOAT_TEXT.fullmatch(text) is None:
        return BAD
    number = float(text)
    return number if math.isfinite(number) else BAD


def float_json(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else BAD
    if kind is int:
        number = float(value) if -(2**1023) < value < 2**1023 else math.inf
        return number if math.isfinite(number) else BAD
    return BAD


def bool_text(text: str) -> Any:
    return _BOOL_TEXT.get(text, BAD)


def bool_json(value: Any) -> Any:
    return value if type(value) is bool else BAD


def str_json(value: Any) -> Any:
    return value if type(value) is str else BAD


def bytes_text(text: str) -> Any:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return BAD


def bytes_json(value: Any) -> Any:
    if type(value) is str:
        return bytes_text(value)
    if type(value) is bytes:  # CBOR carries byte strings natively
        return value
    return BAD


def raw_json(value: Any) -> RawJSON:
    return RawJSON(json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False))


# Format rules ----------------------------------------------------------------------------------
# At most 254 characters (the lookahead), then the address itself.
_EMAIL = re.compile(
    r"(?=.{0,254}\Z)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME = re.compile(r"[0-9]{2}:[0-9]{2}:[0-9]{2}")
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)


#: Truthy for a valid address. The format checks without a calendar part are the regex calls
#: themselves: generated binders call them on every bound value, so no Python frame sits between.
is_email: Final = _EMAIL.fullmatch
is_uuid: Final = _UUID.fullmatch


# is_date, is_time and is_datetime repeat their few lines on purpose: generated binders call them
# on every bound value, and a shared helper would put one more Python frame on that path.
def is_date(text: str) -> bool:
    if _DATE.fullmatch(text) is None:
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def is_time(text: str) -> bool:
    if _TIME.fullmatch(text) is None:
        return False
    try:
        time.fromisoformat(text)
    except ValueError:
        return False
    return True


def is_datetime(text: str) -> bool:
    if _DATETIME.fullmatch(text) is None:
        return False
    try:
        datetime.fromisoformat(text.upper())
    except ValueError:
        return False
    return True
