"""What ``oauth_only`` checks before it starts (nothing here needs the network), and its advisories.

Besides the rules every browser mode shares: the provider is one fw defines, endpoints that
replace its own are https (http only on loopback with ``allow_loopback_http``), each scope
entry is one scope and never ``offline.access`` (no refresh token is ever asked for), and every
claim the settings name is one the provider reports. ``auth.oidc.logout_scope`` and
``auth.shared_device`` belong to other modes, so the shared foreign-settings rule refuses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fw.auth.admission import registered_claim_names
from fw.auth.browser import rules as browser_rules
from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings
from fw.auth.modes.rules import (
    check_admission,
    check_credential,
    check_identity_claim,
    check_required,
    check_scope_entries,
    env_name,
)
from fw.auth.oauth import PROVIDERS, OauthProvider, X
from fw.auth.settings import OauthSettings
from fw.auth.tokens.urls import transport_problem
from fw.configuration.advisory import Advisory
from fw.errors import StartupError

MODE = "oauth_only"
ENDPOINT_KEYS = ("authorization_endpoint", "token_endpoint", "user_endpoint")
#: Asks for a refresh token, which this mode never keeps.
REFRESH_SCOPE = "offline.access"


def configured_provider(oauth: OauthSettings) -> OauthProvider:
    """The provider definition with the endpoints the settings replace."""
    return PROVIDERS[oauth.provider].with_endpoints(
        authorization_endpoint=oauth.authorization_endpoint,
        token_endpoint=oauth.token_endpoint,
        user_endpoint=oauth.user_endpoint,
    )


def check_oauth_only(settings: ModeSettings) -> None:
    """Raise :class:`fw.StartupError` for the first precondition of ``oauth_only`` that fails."""
    auth, oauth = settings.auth, settings.auth.oauth
    check_required(oauth.provider, "auth.oauth.provider")
    check_credential(oauth.client_id, "auth.oauth.client_id", MODE)
    check_credential(oauth.client_secret, "auth.oauth.client_secret", MODE, secret=True)
    for name in ENDPOINT_KEYS:
        url = getattr(oauth, name)
        problem = transport_problem(url, allow_loopback_http=oauth.allow_loopback_http) if url else None
        if problem:
            raise StartupError(f"auth.oauth.{name}", url, f"the endpoint {problem}")
    browser_rules.check_stores(auth, settings.session)
    browser_rules.check_redirect_url("auth.oauth.redirect_url", oauth.redirect_url, oauth.allow_loopback_http)
    check_admission("auth.oauth", oauth, auto_provision=oauth.auto_provision)
    check_identity_claim("auth.oauth", oauth.identity_claim)
    check_scope_entries("auth.oauth.scopes", oauth.scopes)
    if REFRESH_SCOPE in oauth.scopes:
        raise StartupError(
            "auth.oauth.scopes",
            REFRESH_SCOPE,
            "oauth_only never asks for a refresh token (the access token is discarded at once); remove it",
        )
    reported = PROVIDERS[oauth.provider].reported_claims
    named = [("auth.oauth.identity_claim", oauth.identity_claim)]
    if oauth.admission == "registered":
        named += [
            ("auth.oauth.registered_claims", name)
            for name in registered_claim_names(oauth.registered_claims, oauth.identity_claim)
        ]
    for key, claim in named:
        if claim not in reported:
            raise StartupError(
                key, claim, f"the provider {oauth.provider} reports only these claims: {', '.join(reported)}"
            )
    browser_rules.check_session_lifetimes(auth)
    browser_rules.check_assurance(auth)


def oauth_advisories(values: Mapping[str, Any], app_env: str) -> list[Advisory]:
    return browser_rules.redirect_url_advisories("auth.oauth", values, app_env)


def oauth_dev_environment(issuer: DevIssuer) -> DevEnvironment:
    """The variables pointing ``oauth_only`` at the X-shaped stand-in ``fw dev`` serves at ``issuer``.

    The stand-in answers on X's own paths, so the three endpoints are the issuer's origin plus
    the paths of the ``x`` definition; the client registration is fresh each run.
    """
    return DevEnvironment(
        values={
            env_name("auth.oauth.client_id"): issuer.client_id,
            env_name("auth.oauth.client_secret"): issuer.client_secret,
            **{
                env_name(f"auth.oauth.{name}"): _on(issuer.issuer, getattr(X, name)) for name in ENDPOINT_KEYS
            },
        },
        defaults={
            env_name("auth.oauth.provider"): X.name,
            env_name("auth.oauth.allow_loopback_http"): "true",
        },
    )


def _on(origin: str, url: str) -> str:
    """``url``'s path and query on ``origin``."""
    path = url.split("://", 1)[1]
    return origin.rstrip("/") + path[path.index("/") :]
