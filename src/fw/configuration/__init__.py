"""Configuration: typed settings filled from defaults, a TOML file, the environment and options.

``fw generate`` writes each registered type's key table and constructor into ``_fw_config.py``;
this package only layers values into those tables, so loading never inspects annotations. The
names here are the runtime the App, the ``fw`` command and applications call.
"""

from __future__ import annotations

from fw.configuration import doctor as _doctor
from fw.configuration.registry import (
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
from fw.configuration.registry import state as _state


def doctor_report() -> list[str]:
    """Configuration findings for ``fw doctor``: lines starting ``error:`` or ``warning:``."""
    ensure_parsed()
    current = _state()
    assert current.resolved is not None
    loaders = [reg.loader for reg in current.configs.values() if reg.loader is not None]
    from fw.configuration.schema import Loader

    return _doctor.report(
        [loader for loader in loaders if isinstance(loader, Loader)],
        current.resolved.values,
        current.resolved.sources,
        current.file,
        current.app_env,
    )


__all__ = [
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
