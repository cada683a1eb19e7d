"""What ``oidc_only`` checks before it starts (nothing here needs the network), and its advisories.

The provider checks (:func:`check_provider`) are shared with ``oidc_passkey``, which reads the
same ``[auth.oidc]`` table; the rules of every mode and of every browser mode come from
:mod:`fw.auth.modes.rules` and :mod:`fw.auth.browser.rules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from fw.auth.browser.rules import (
    check_assurance,
    check_redirect_url,
    check_session_lifetimes,
    check_stores,
    redirect_url_advisories,
)
from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings
from fw.auth.modes.rules import (
    check_admission,
    check_credential,
    check_identity_claim,
    check_issuer,
    check_scope_entries,
    env_name,
)
from fw.auth.settings import AuthSettings
from fw.auth.stores.registry import find_store, recalling_session_backends
from fw.configuration.advisory import Advisory
from fw.errors import StartupError


def check_provider(auth: AuthSettings, mode: str) -> None:
    """``[auth.oidc]``'s provider: its credentials (the fix names the variables) and an https issuer."""
    oidc = auth.oidc
    check_credential(oidc.issuer, "auth.oidc.issuer", mode)
    check_credential(oidc.client_id, "auth.oidc.client_id", mode)
    check_credential(oidc.client_secret, "auth.oidc.client_secret", mode, secret=True)
    check_issuer("auth.oidc", oidc.issuer, oidc.allow_loopback_http)


def check_oidc_only(settings: ModeSettings, mode: str = "oidc_only") -> None:
    """Raise :class:`fw.StartupError` for the first precondition of ``oidc_only`` that fails
    (``oidc_passkey``, which signs in at the same provider, checks these first)."""
    auth, oidc = settings.auth, settings.auth.oidc
    check_provider(auth, mode)
    check_stores(auth, settings.session)
    check_redirect_url("auth.oidc.redirect_url", oidc.redirect_url, oidc.allow_loopback_http)
    check_admission("auth.oidc", oidc, auto_provision=oidc.auto_provision)
    check_identity_claim("auth.oidc", oidc.identity_claim)
    check_scope_entries("auth.oidc.scopes", oidc.scopes)
    check_session_lifetimes(auth)
    check_shared_device(auth)
    check_assurance(auth)
    check_backchannel_logout(settings)


def check_shared_device(auth: AuthSettings) -> None:
    """``auth.shared_device = true``: a logout must end the provider's session too, or the next
    person at the terminal signs in as the last one without being asked."""
    if auth.shared_device and auth.oidc.logout_scope != "global":
        raise StartupError(
            "auth.oidc.logout_scope",
            auth.oidc.logout_scope,
            'auth.shared_device = true requires logout_scope = "global" (a logout on a shared '
            "terminal must end the provider's session too); set it, or shared_device = false",
        )


def check_backchannel_logout(settings: ModeSettings) -> None:
    """``auth.oidc.backchannel_logout_path``: a root-relative path of its own, and sessions the
    provider's logout can reach (a sealed cookie lives in the browser: nothing to destroy)."""
    auth, path = settings.auth, settings.auth.oidc.backchannel_logout_path
    if not path:
        return
    key = "auth.oidc.backchannel_logout_path"
    if not path.startswith("/") or "//" in path or "\\" in path or "?" in path or "#" in path:
        raise StartupError(key, path, "use a root-relative path such as /auth/backchannel-logout")
    if path in (auth.login_path, auth.callback_path, auth.logout_path):
        raise StartupError(key, path, "use a path of its own, not the login, callback or logout path")
    engine = find_store(settings.session.backend)
    if engine is not None and not engine.recalls_sessions:
        recalling = recalling_session_backends()
        listed = (
            ", ".join(recalling[:-1]) + f" or {recalling[-1]}" if len(recalling) > 1 else "".join(recalling)
        )
        raise StartupError(
            key,
            path,
            f"{engine.name} sessions live in the browser and cannot be ended from the back channel; "
            f"set session.backend to {listed}, or leave this path empty",
        )


def oidc_advisories(values: Mapping[str, Any], app_env: str) -> list[Advisory]:
    return [*redirect_url_advisories("auth.oidc", values, app_env), *backchannel_notes(values)]


def backchannel_notes(values: Mapping[str, Any]) -> list[Advisory]:
    """The back-channel logout URI to register at the provider (``fw doctor`` prints it).

    Its origin is the callback's (``auth.oidc.redirect_url``), where the provider already
    reaches the application; a path-only callback (loopback development) gives the path alone.
    """
    key = "auth.oidc.backchannel_logout_path"
    path = str(values.get(key) or "")
    if not path:
        return []
    parts = urlsplit(str(values.get("auth.oidc.redirect_url") or ""))
    origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else "<app origin>"
    where = origin + path
    return [
        Advisory(
            "note",
            key,
            f"register {where} as the back-channel logout URI (backchannel_logout_uri) of client "
            f"{values.get('auth.oidc.client_id') or '<auth.oidc.client_id>'} at the provider",
        )
    ]


def oidc_dev_environment(issuer: DevIssuer) -> DevEnvironment:
    """The variables a deployment sets for its provider, pointing at the development provider.

    The issuer and the client registration are fresh each run, so they replace whatever the
    shell had; plain-http loopback is allowed unless the developer decided otherwise.
    """
    return DevEnvironment(
        values={
            env_name("auth.oidc.issuer"): issuer.issuer,
            env_name("auth.oidc.client_id"): issuer.client_id,
            env_name("auth.oidc.client_secret"): issuer.client_secret,
        },
        defaults={env_name("auth.oidc.allow_loopback_http"): "true"},
    )
