"""How a rejected value is echoed back in an error: quoted, and cut short when it is long.

The message should let a person recognise the value, not reprint a pasted certificate or a
runaway variable; the length says how much was cut.
"""

from __future__ import annotations

LIMIT = 60


def quoted(text: str) -> str:
    """``repr(text)``, or its first characters plus the full length when it is long."""
    if len(text) <= LIMIT:
        return repr(text)
    return f"{text[:LIMIT]!r}... ({len(text)} characters)"
