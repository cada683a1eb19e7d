"""Go duration notation (``1h30m``, ``250ms``, ``-1.5h``), the one way fw reads and prints durations.

A bare number is refused everywhere: ``30`` could mean seconds or minutes, and guessing is how
outages start. Values keep microsecond precision because that is what ``timedelta`` holds.
"""

from __future__ import annotations

import re
from datetime import timedelta

from fw.configuration.quoting import quoted

_UNIT_NS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h)")
#: Go's range: a signed 64-bit count of nanoseconds (about 292 years either way).
_MAX_NS = 2**63 - 1


class DurationError(ValueError):
    """A text that is not a Go duration; the message says why and shows the expected form."""


def parse_duration(text: str) -> timedelta:
    """Parse Go duration notation; sub-microsecond remainders are truncated toward zero."""
    body = text
    negative = body.startswith("-")
    if body[:1] in "+-" and body:
        body = body[1:]
    if not body:
        raise DurationError(f"invalid duration {quoted(text)}: empty (write for example 30s or 1h30m)")
    if re.fullmatch(r"[0-9.]+", body):
        example = f"for example {body}s" if len(body) <= 20 else "ns, us, ms, s, m or h"
        raise DurationError(f"invalid duration {quoted(text)}: a unit is required ({example})")
    total_ns = 0
    pos = 0
    while pos < len(body):
        match = _PART.match(body, pos)
        if match is None or match.end() == pos:
            raise DurationError(
                f"invalid duration {quoted(text)}: expected a number and a unit (ns, us, ms, s, m, h)"
            )
        whole, fraction, unit = match.group(1), match.group(2), match.group(3)
        if not whole and not fraction:
            raise DurationError(f"invalid duration {quoted(text)}: a number must come before {unit}")
        scale = _UNIT_NS[unit]
        total_ns += int(whole or "0") * scale
        if fraction:
            total_ns += int(fraction) * scale // 10 ** len(fraction)
        pos = match.end()
    if total_ns > _MAX_NS + (1 if negative else 0):
        raise DurationError(f"invalid duration {quoted(text)}: out of range (at most 2562047h47m16s)")
    micros = total_ns // 1000
    return timedelta(microseconds=-micros if negative else micros)


def positive_duration(text: str) -> timedelta | None:
    """``text`` as a duration above zero; ``None`` for anything else, which each command-line
    option refuses in its own words."""
    try:
        value = parse_duration(text)
    except DurationError:
        return None
    return value if value > timedelta(0) else None


def format_duration(value: timedelta) -> str:
    """Go's ``Duration.String`` form: ``1h30m0s``, ``250ms``, ``1.5µs``, ``0s``."""
    micros = value // timedelta(microseconds=1)
    if micros == 0:
        return "0s"
    sign = "-" if micros < 0 else ""
    micros = abs(micros)
    if micros < 1_000_000:
        if micros < 1000:
            return f"{sign}{micros}µs"
        return f"{sign}{_decimal(micros, 1000)}ms"
    hours, rest = divmod(micros, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds = _decimal(rest, 1_000_000)
    if hours:
        return f"{sign}{hours}h{minutes}m{seconds}s"
    if minutes:
        return f"{sign}{minutes}m{seconds}s"
    return f"{sign}{seconds}s"


def _decimal(amount: int, scale: int) -> str:
    whole, fraction = divmod(amount, scale)
    if not fraction:
        return str(whole)
    digits = str(fraction).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"
