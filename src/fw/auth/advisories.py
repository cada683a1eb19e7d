"""Authentication's findings for ``fw doctor`` and the startup summary, and its removed keys.

The configuration layer knows nothing about auth modes: this module registers with it what
authentication has to say about settings that load but are risky, and the keys it removed
(refused with their replacement when a configuration still turns them on).
"""

from __future__ import annotations

from fw.auth.modes.registry import advisories
from fw.auth.stores.firestore_ttl import ttl_advisories
from fw.configuration.advisory import Advisory, AdvisoryContext, register_advisories
from fw.configuration.removed import register_removed_key

REMOVED_KEYS = {
    "auth.oidc.provider_logout": "removed setting: use auth.oidc.logout_scope (reconfirm or global) instead",
}


def mode_advisories(context: AdvisoryContext) -> list[Advisory]:
    """What the configured ``auth.mode`` finds risky (each mode knows its own settings)."""
    return advisories(context.values, context.sources, context.app_env)


def register() -> None:
    """Hand authentication's advisories and removed keys to the configuration layer."""
    register_advisories(mode_advisories)
    register_advisories(ttl_advisories)
    for key, fix in REMOVED_KEYS.items():
        register_removed_key(key, fix)
