"""Removed keys: settings a pillar no longer reads, refused (with the replacement) when set.

Silently ignoring a removed key would keep a deployment running on a setting that no longer does
anything; the pillar that removed it registers the key and its fix here, and parsing refuses a
configuration that still turns it on. Removed keys are left out of the summary, ``--help`` and
the templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    falsy = {spec.key: spec.falsy for loader in loaders for spec in loader.fields}
    for key, fix in _removed.items():
        if key in values and not is_off(values[key], falsy.get(key)):
            raise ConfigError(key, sources.get(key, ""), fix)
