"""What authentication tells the configuration layer: the ``[auth]`` tables the chosen mode leaves
unread (left out of the startup summary), its findings for ``fw doctor`` and the summary, and the
keys it removed (refused with their replacement when a configuration still turns them on).

The configuration layer knows nothing about auth modes, so this module registers with it. Each
hook imports the mode registry (and with it every mode's code) or the store registry only
when the resolved values turn that part on: an application with authentication off, or on
another backend, never loads them (DESIGN 10.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fw.configuration.activity import register_inactive_hook
from fw.configuration.advisory import Advisory, AdvisoryContext, register_advisories
from fw.configuration.removed import register_removed_key

REMOVED_KEYS = {
    "auth.oidc.provider_logout": "removed setting: use auth.oidc.logout_scope (reconfirm or global) instead",
}


def _auth_on(values: Mapping[str, Any]) -> bool:
    """The registry reports nothing while auth is off, so it need not be imported then."""
    return values.get("auth.enabled") is True


def unread_tables(values: Mapping[str, Any]) -> list[str]:
    """The ``[auth]`` tables the configured mode does not read, for the startup summary."""
    if not _auth_on(values):
        return []
    from fw.auth.modes.registry import unread_tables as mode_unread_tables

    return mode_unread_tables(values)


def mode_advisories(context: AdvisoryContext) -> list[Advisory]:
    """What the configured ``auth.mode`` finds risky (each mode knows its own settings)."""
    if not _auth_on(context.values):
        return []
    from fw.auth.modes.registry import advisories

    return advisories(context.values, context.sources, context.app_env)


#: The default of ``auth.backend`` and ``session.backend``: while both keep it, the store registry
#: is not imported for the summary (fw's relational engine has nothing to advise).
DEFAULT_BACKEND = "rdb"


def store_advisories(context: AdvisoryContext) -> list[Advisory]:
    """What the engines ``auth.backend`` and ``session.backend`` name have to say (the TTL policies
    a ``firestore`` store needs), whether or not their pillar is on."""
    values = context.values
    if all(values.get(key) in (None, DEFAULT_BACKEND) for key in ("auth.backend", "session.backend")):
        return []
    from fw.auth.stores.registry import doctor_advisories

    return doctor_advisories(context)


def register() -> None:
    """Hand authentication's summary filter, advisories and removed keys to the configuration layer."""
    register_inactive_hook(unread_tables)
    register_advisories(mode_advisories)
    register_advisories(store_advisories)
    for key, fix in REMOVED_KEYS.items():
        register_removed_key(key, fix)
