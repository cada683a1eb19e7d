"""Choice keys: a string key whose value must be one of a declared set (``Literal`` or ``fw.enum``).

The generated key table carries the declared choices; a pillar whose values are pluggable widens
a key's set at run time with :func:`extend_choices` (an outside package registering a new
``auth.mode``), before parsing. Every source is checked against the current set when its value
is read, so a refusal names the key, the value, where it came from and what is allowed.
"""

from __future__ import annotations

from collections.abc import Iterable

from fw.configuration.quoting import quoted
from fw.configuration.schema import Field, Value
from fw.errors import ConfigError

_extra: dict[str, tuple[str, ...]] = {}


def extend_choices(key: str, *values: str) -> None:
    """Accept ``values`` for the choice key ``key`` too (``extend_choices("auth.mode", "mymode")``).

    Call it before parsing, like a registration; adding a value twice is harmless. Parsing
    refuses an extension naming a key that declares no choices.
    """
    if not isinstance(key, str) or not key:
        raise ValueError("extend_choices needs the full key, such as 'auth.mode'")
    for value in values:
        if not isinstance(value, str) or not value or "," in value:
            raise ValueError(
                f"extend_choices({key!r}, ...): {value!r} is not a choice name (non-empty, no comma)"
            )
    _extra[key] = tuple(dict.fromkeys((*_extra.get(key, ()), *values)))


def choices(spec: Field) -> tuple[str, ...]:
    """The values ``spec`` accepts now: declared, then extended (``()`` for a free key)."""
    if not spec.choices:
        return ()
    return tuple(dict.fromkeys((*spec.choices, *_extra.get(spec.key, ()))))


def describe(spec: Field) -> str:
    """``a, b, c`` (with ``, or empty`` when the key may be left unset), for messages and help."""
    allowed = choices(spec)
    named = ", ".join(value for value in allowed if value)
    return f"{named}, or empty" if "" in allowed else named


def checked(spec: Field, value: Value, source: str, key: str | None = None) -> Value:
    """``value`` when ``spec`` accepts it; else a :class:`fw.ConfigError` naming what is allowed."""
    allowed = choices(spec)
    if allowed and value not in allowed:
        raise ConfigError(
            key or spec.key, source, f"{quoted(str(value))} is not a choice; use one of: {describe(spec)}"
        )
    return value


def unknown_extensions(fields: Iterable[Field]) -> list[str]:
    """Extended keys that no choice key among ``fields`` declares (a typo, or not a choice key)."""
    declared = {spec.key for spec in fields if spec.choices}
    return sorted(key for key in _extra if key not in declared)
