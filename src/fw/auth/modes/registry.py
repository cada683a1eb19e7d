"""The one registry of authentication modes: ``auth.mode`` -> :class:`~fw.auth.modes.base.Mode`.

Everything that depends on the mode asks here and nowhere else: the dispatcher, the
foreign-settings rule, the startup summary's filter, ``fw doctor``, ``fw dev`` and ``fw init``.
fw registers the modes it ships (:mod:`fw.auth.modes`); an application registers its own with
:func:`fw.auth.register_mode` before its App starts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fw.auth.modes.base import DevEnvironment, DevIssuer, Mode
from fw.configuration.choices import extend_choices
from fw.errors import StartupError

if TYPE_CHECKING:
    from fw.configuration.advisory import Advisory

#: Tables every browser mode reads, whichever else it reads.
BROWSER_TABLES = ("session", "assurance")

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_modes: dict[str, Mode] = {}


def register_mode(mode: Mode) -> Mode:
    """Make ``auth.mode = mode.name`` select ``mode``. Registering the same object again is a no-op;
    another object under a name already taken is refused, so no mode silently replaces another."""
    if not _NAME.fullmatch(mode.name):
        raise ValueError(f"mode name {mode.name!r}: use lower-case letters, digits and _")
    existing = _modes.get(mode.name)
    if existing is not None and existing is not mode:
        raise RuntimeError(f"auth.mode {mode.name!r} is already registered ({existing!r})")
    _modes[mode.name] = mode
    extend_choices("auth.mode", mode.name)  # the loader accepts every registered mode's name
    return mode


def find_mode(name: object) -> Mode | None:
    """The mode registered under ``name``, or ``None``."""
    return _modes.get(name) if isinstance(name, str) else None


def registered_modes() -> tuple[Mode, ...]:
    """Every registered mode, in registration order (the order messages list them in)."""
    return tuple(_modes.values())


def mode_named(name: str) -> Mode:
    """The mode for ``auth.mode``; an unknown name is a startup error listing the registered ones."""
    mode = find_mode(name)
    if mode is None:
        raise StartupError("auth.mode", name, f"use one of {', '.join(_modes)}")
    return mode


def reads(mode: Mode, table: str) -> bool:
    """Whether ``mode`` reads the mode-specific table (or key) ``table`` under ``[auth]``."""
    return table in mode.tables or (mode.browser and table in BROWSER_TABLES)


def mode_tables() -> tuple[str, ...]:
    """Every mode-specific table under ``[auth]``: those the registered modes read, in order."""
    found = [table for mode in _modes.values() for table in mode.tables]
    return tuple(dict.fromkeys([*found, *BROWSER_TABLES]))


def readers(table: str) -> list[str]:
    """The names of the registered modes reading ``table``."""
    return [mode.name for mode in _modes.values() if reads(mode, table)]


def unread_tables(values: Mapping[str, Any]) -> list[str]:
    """The ``[auth]`` tables (and keys) the configured mode does not read, for the startup summary.

    Nothing is reported while auth is off (``dependon`` already hides ``[auth]``) or the mode is
    unknown (startup refuses it, and every key stays visible to explain why).
    """
    mode = find_mode(values.get("auth.mode"))
    if values.get("auth.enabled") is not True or mode is None:
        return []
    return [f"auth.{table}" for table in mode_tables() if not reads(mode, table)]


def advisories(values: Mapping[str, Any], sources: Mapping[str, str], app_env: str) -> list[Advisory]:
    """The configured mode's advisories (none while auth is off or the mode is unknown)."""
    mode = find_mode(values.get("auth.mode"))
    if values.get("auth.enabled") is not True or mode is None:
        return []
    return mode.advisories(values, sources, app_env)


def offered_dev_environment(issuer: DevIssuer) -> DevEnvironment:
    """Everything any registered mode would inject for ``fw dev``: enough to read a configuration
    written for any of them before knowing which one it selects."""
    values: dict[str, str] = {}
    defaults: dict[str, str] = {}
    for mode in _modes.values():
        wanted = mode.dev_environment(issuer)
        if wanted is not None:
            values.update(wanted.values)
            defaults.update(wanted.defaults)
    return DevEnvironment(values, defaults)
