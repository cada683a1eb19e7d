"""Configuration: typed settings filled from defaults, a TOML file, the environment and options.

``fw generate`` writes each registered type's key table and constructor into ``_fw_config.py``;
this package only layers values into those tables, so loading never inspects annotations. The
names here are the runtime the App, the ``fw`` command and applications call.

Each parse makes a :data:`Configuration`; an App keeps the one it first started under
(:func:`bind`, :func:`of`, :mod:`fw.configuration.owner`), and ``fw.config(cls, request)`` reads
the configuration of the App serving ``request``.

Pillars extend it without it knowing them: :func:`extend_choices` widens a choice key (a mode
registered from outside fw), :func:`register_advisories` adds findings for ``fw doctor`` and the
summary, :func:`register_removed_key` refuses a key that was removed, and
:func:`fw.configuration.activity.register_inactive_hook` leaves unused tables out of the summary.
fw's own pillars are handed over by whatever parses first above this layer (an App, ``fw.parse_config``,
``fw.testing.configured``, the ``fw`` command: :mod:`fw.pillars`), not when a module is imported.
"""

from __future__ import annotations

from fw.configuration import registry
from fw.configuration.activity import register_inactive_hook
from fw.configuration.advisory import Advisory, AdvisoryContext, register_advisories
from fw.configuration.choices import extend_choices
from fw.configuration.owner import Owned, bind, config, in_force, of
from fw.configuration.registry import (
    Configuration,
    advisories,
    choices_of,
    command,
    current_app_env,
    ensure_parsed,
    load,
    parse_config,
    print_summary_once,
    register_config,
    register_subcommand,
    requested_template,
    reset,
    set_config_load_options,
    source_of,
    subcommand,
    summary_items,
)
from fw.configuration.removed import register_removed_key


def bound(app: object) -> Configuration:
    """The configuration ``app`` runs under: the one it started under, else the one in force."""
    return of(app) or registry.state()


def doctor_report() -> list[str]:
    """Configuration findings for ``fw doctor``: lines starting ``error:``, ``warning:`` or ``note:``."""
    return [advisory.line() for advisory in advisories()]


def doctor_checked() -> str:
    """What the configuration part of ``fw doctor`` checked (the file, the keys, the rules)."""
    return registry.checked()


__all__ = [
    "Advisory",
    "AdvisoryContext",
    "Configuration",
    "Owned",
    "advisories",
    "bind",
    "bound",
    "choices_of",
    "command",
    "config",
    "current_app_env",
    "doctor_checked",
    "doctor_report",
    "ensure_parsed",
    "extend_choices",
    "in_force",
    "load",
    "of",
    "parse_config",
    "print_summary_once",
    "register_advisories",
    "register_config",
    "register_inactive_hook",
    "register_removed_key",
    "register_subcommand",
    "requested_template",
    "reset",
    "set_config_load_options",
    "source_of",
    "subcommand",
    "summary_items",
]
