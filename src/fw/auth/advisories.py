"""Authentication's findings for ``fw doctor`` and the startup summary, and its removed keys.

The configuration layer knows nothing about auth modes: this module registers with it what
authentication has to say about settings that load but are risky, and the keys it removed
(refused with their replacement when a configuration still turns them on).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fw.configuration.advisory import Advisory, AdvisoryContext, register_advisories
from fw.configuration.removed import register_removed_key

#: The table holding ``redirect_url`` in each browser mode that redirects to a provider.
_BROWSER_TABLE = {"oidc_only": "auth.oidc", "oidc_passkey": "auth.oidc", "oauth_only": "auth.oauth"}

REMOVED_KEYS = {
    "auth.oidc.provider_logout": "removed setting: use auth.oidc.logout_scope (reconfirm or global) instead",
}


def revocation_admits_while_down(context: AdvisoryContext) -> list[Advisory]:
    """``jwt_only`` with revocation on but ``on_unavailable = admit``: revoked tokens pass while
    the revocation store is down."""
    values = context.values
    key = "auth.jwt.revocation.on_unavailable"
    if not (
        values.get("auth.enabled") is True
        and values.get("auth.mode") == "jwt_only"
        and values.get("auth.jwt.revocation.mode") not in (None, "", "off")
        and values.get(key) == "admit"
    ):
        return []
    return [
        Advisory(
            "error",
            key,
            f"{key} = 'admit' (from {context.source(key)}): revoked tokens are accepted while the "
            "revocation store is down; use refuse (503) unless the risk is accepted",
        )
    ]


def relative_redirect_url(context: AdvisoryContext) -> list[Advisory]:
    """Outside ``dev``, a browser mode needs the absolute callback URL registered at the provider."""
    values = context.values
    table = _BROWSER_TABLE.get(str(values.get("auth.mode", "")))
    if values.get("auth.enabled") is not True or table is None or context.app_env == "dev":
        return []
    key = f"{table}.redirect_url"
    url = str(values.get(key, ""))
    parts = urlsplit(url)
    if not url:
        return [
            Advisory(
                "error",
                key,
                f"{key} is empty: outside dev set the absolute callback URL registered at the "
                "provider (https://host/auth/callback)",
            )
        ]
    if not parts.scheme or not parts.netloc:
        return [
            Advisory(
                "error",
                key,
                f"{key} = {url!r} is path-only: outside dev it must be an absolute URL "
                "(https://host/auth/callback)",
            )
        ]
    return []


def register() -> None:
    """Hand authentication's advisories and removed keys to the configuration layer."""
    register_advisories(revocation_admits_while_down)
    register_advisories(relative_redirect_url)
    for key, fix in REMOVED_KEYS.items():
        register_removed_key(key, fix)
