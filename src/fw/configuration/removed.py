"""Removed keys: settings a pillar no longer reads, refused (with the replacement) when set.

Silently ignoring a removed key would keep a deployment running on a setting that no longer does
anything; the pillar that removed it registers the key and its fix here, and parsing refuses a
configuration that still turns it on. Removed keys are left out of the summary, ``--help`` and
the templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fw.configuration.masking import shown
from fw.configuration.schema import Loader
from fw.configuration.values import is_off
from fw.errors import ConfigError

_removed: dict[str, str] = {}


def register_removed_key(key: str, fix: str) -> None:
    """Refuse ``key`` whenever a source sets it to anything but its off value; ``fix`` says what
    replaces it (``"removed setting: use auth.oidc.logout_scope (reconfirm or global) instead"``)."""
    _removed[key] = fix


def removed_keys() -> frozenset[str]:
    return frozenset(_removed)


def check_removed(loaders: list[Loader], values: Mapping[str, Any], sources: Mapping[str, str]) -> None:
    """Raise :class:`fw.ConfigError` for the first removed key the resolved values turn on."""
    specs = {spec.key: spec for loader in loaders for spec in loader.fields}
    for key, fix in _removed.items():
        spec = specs.get(key)
        if key in values and not is_off(values[key], spec.falsy if spec else None):
            form = shown(values[key], spec.secret if spec else "mask")
            value = f"set to {form[0]}" if form else "set"
            raise ConfigError(key, sources.get(key, ""), f"{fix} (it is {value})")
