"""Framework settings for jwt_only tests, built directly with the spec's defaults."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import fw
from fw.auth.modes.base import ModeSettings
from fw.auth.sessions.settings import SessionKeyring, SessionSettings
from fw.auth.settings import (
    Assurance,
    AssuranceHint,
    AssurancePresence,
    AuthSession,
    AuthSettings,
    Bootstrap,
    Claim,
    JwtSettings,
    OauthSettings,
    OidcSettings,
    Passkey,
    Protection,
    Recovery,
    Registration,
    Revocation,
)
from fw.auth.stores.select import middleware_settings


def claim() -> Claim:
    return Claim(path="", values=[], match="any")


def jwt_settings(issuer: str, **overrides: Any) -> JwtSettings:
    revocation = overrides.pop(
        "revocation", Revocation(mode="off", on_unavailable="refuse", max_propagation_delay=timedelta(0))
    )
    base = JwtSettings(
        issuer=issuer,
        audience=["api"],
        algorithms=["RS256"],
        admission="authenticated",
        identity_claim="sub",
        max_token_lifetime=timedelta(hours=1),
        discovery="oidc",
        jwks_uri="",
        required_token_type="at+jwt",
        required_scopes=[],
        claim=claim(),
        registered_claims="",
        revocation=revocation,
        allow_loopback_http=issuer.startswith("http://"),
        dpop="off",
        dpop_nonce=False,
    )
    return replace(base, **overrides)


def revocation(mode: str, *, on_unavailable: str = "refuse", delay: timedelta = timedelta(0)) -> Revocation:
    return Revocation(mode=mode, on_unavailable=on_unavailable, max_propagation_delay=delay)


def auth_settings(
    jwt: JwtSettings,
    *,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    enabled: bool = True,
    mode: str = "jwt_only",
) -> AuthSettings:
    return AuthSettings(
        enabled=enabled,
        backend="rdb",
        mode=mode,
        login_path="/auth/login",
        callback_path="/auth/callback",
        logout_path="/auth/logout",
        post_login_path="/",
        shared_device=False,
        protection=Protection(
            include=["/api/"] if include is None else include,
            exclude=exclude or [],
            unauthenticated="redirect",
        ),
        session=AuthSession(ttl=timedelta(hours=24), idle_timeout=timedelta(0)),
        # Every field spelled out (no defaults to lean on): the tables share field names, not values.
        oidc=OidcSettings(
            issuer="",
            client_id="",
            client_secret="",
            redirect_url="",
            scopes=[],
            identity_claim="sub",
            admission="authenticated",
            auto_provision=True,
            claim=claim(),
            registered_claims="",
            logout_scope="reconfirm",
            allow_global_logout_request=False,
            allow_loopback_http=False,
            provider_logout=False,
            backchannel_logout_path="",
        ),
        oauth=OauthSettings(
            provider="",
            client_id="",
            client_secret="",
            redirect_url="",
            scopes=[],
            identity_claim="sub",
            admission="authenticated",
            auto_provision=True,
            claim=claim(),
            registered_claims="",
            allow_loopback_http=False,
            authorization_endpoint="",
            token_endpoint="",
            user_endpoint="",
        ),
        jwt=jwt,
        passkey=Passkey(path="/auth/passkey", rp_id="", rp_name="", origins=[], user_verification="required"),
        bootstrap=Bootstrap(
            issue_ttl=timedelta(hours=72), enrollment_ttl=timedelta(minutes=10), max_attempts=5
        ),
        recovery=Recovery(policy=""),
        registration=Registration(policy=""),
        assurance=Assurance(
            presence=AssurancePresence(
                enabled=False, interval=timedelta(minutes=1), absent_after=timedelta(minutes=30)
            ),
            hint=AssuranceHint(
                enabled=False, secret="", ttl=timedelta(hours=720), idle_timeout=timedelta(hours=336)
            ),
            policy=[],
        ),
    )


def mode_settings(auth: AuthSettings, dsn: str = "sqlite:///x", *, sessions: bool = False) -> ModeSettings:
    """What the dispatcher hands a mode: these ``[auth]`` settings, ``[session]`` at its defaults."""
    session = SessionSettings(
        enabled=sessions,
        backend="rdb",
        redis_url="redis://127.0.0.1:6379/0",
        keyring=SessionKeyring(secret=""),
    )
    return ModeSettings(auth=auth, session=session, stores=middleware_settings(dsn), lookup=fw.config)
