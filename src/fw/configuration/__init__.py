"""Configuration: typed settings filled from defaults, a TOML file, the environment and options.

``fw generate`` writes each registered type's key table and constructor into ``_fw_config.py``;
this package only layers values into those tables, so loading never inspects annotations. The
names here are the runtime the App, the ``fw`` command and applications call.
"""

from __future__ import annotations

from fw.configuration.registry import (
    advisories,
    command,
    config,
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


def doctor_report() -> list[str]:
    """Configuration findings for ``fw doctor``: lines starting ``error:`` or ``warning:``."""
    return [advisory.line() for advisory in advisories()]


__all__ = [
    "advisories",
    "command",
    "config",
    "doctor_report",
    "ensure_parsed",
    "load",
    "parse_config",
    "print_summary_once",
    "register_config",
    "register_subcommand",
    "requested_template",
    "reset",
    "set_config_load_options",
    "source_of",
    "subcommand",
    "summary_items",
]
