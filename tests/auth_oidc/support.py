"""Settings and an App for browser login tests (the settings are built by hand, field by field)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import fw
from fw.auth.modes.oidc_only import OidcOnly
from fw.settings import (
    Assurance,
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
    SessionKeyring,
    SessionSettings,
)
from fw.testing import TestIdentityProvider


def oidc_settings(idp: TestIdentityProvider | None = None, **changes: Any) -> OidcSettings:
    base = OidcSettings(
        issuer=idp.issuer if idp else "https://id.example.com",
        client_id=idp.client_id if idp else "app",
        client_secret=idp.client_secret if idp else "s3cret",
        redirect_url="",
        scopes=[],
        identity_claim="sub",
        admission="authenticated",
        auto_provision=True,
        claim=Claim(path="", values=[], match="any"),
        registered_claims="",
        logout_scope="reconfirm",
        allow_global_logout_request=False,
        allow_loopback_http=True,
        provider_logout=False,
    )
    return replace(base, **changes)


def auth_settings(oidc: OidcSettings, **changes: Any) -> AuthSettings:
    protection = changes.pop(
        "protection", Protection(include=["/private/"], exclude=[], unauthenticated="redirect")
    )
    session = changes.pop("session", AuthSession(ttl=timedelta(hours=24), idle_timeout=timedelta(0)))
    base = AuthSettings(
        enabled=True,
        backend="rdb",
        mode="oidc_only",
        login_path="/auth/login",
        callback_path="/auth/callback",
        logout_path="/auth/logout",
        post_login_path="/",
        shared_device=False,
        protection=protection,
        session=session,
        oidc=oidc,
        oauth=OauthSettings(
            "", "", "", "", [], "sub", "authenticated", True, Claim("", [], "any"), "", False
        ),
        jwt=JwtSettings(
            issuer="",
            audience=[],
            algorithms=[],
            admission="",
            identity_claim="sub",
            max_token_lifetime=timedelta(0),
            discovery="oidc",
            jwks_uri="",
            required_token_type="at+jwt",
            required_scopes=[],
            claim=Claim("", [], "any"),
            registered_claims="",
            revocation=Revocation("", "refuse", timedelta(0)),
            allow_loopback_http=False,
        ),
        passkey=Passkey("/auth/passkey"),
        bootstrap=Bootstrap(timedelta(hours=72), timedelta(minutes=10)),
        recovery=Recovery(""),
        registration=Registration("open"),
        assurance=Assurance(False, []),
    )
    return replace(base, **changes)


def session_settings(backend: str = "rdb", *, secret: str = "", redis_url: str = "") -> SessionSettings:
    return SessionSettings(
        enabled=True,
        backend=backend,
        redis_url=redis_url or "redis://127.0.0.1:6379/0",
        keyring=SessionKeyring(secret),
    )


def make_app(extension: OidcOnly) -> fw.App:
    """An App with a public page, a protected page and a page showing the signed-in user."""
    app = fw.App()

    @app.route("GET /")
    async def home(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse({"page": "home", "user": user.account_id if user else None})

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:
            return fw.JSONResponse({"signed_in": False})
        return fw.JSONResponse(
            {
                "signed_in": True,
                "account_id": user.account_id,
                "display_name": user.display_name,
                "email": user.email,
                "issuer": user.issuer,
                "key": user.key,
            }
        )

    @app.route("GET /who")
    async def who(request: fw.Request) -> fw.Response:
        result = fw.request_authentication(request)
        if result is None:
            return fw.JSONResponse({"method": None})
        return fw.JSONResponse(
            {
                "method": result.method,
                "account_id": result.account_id,
                "issuer": result.issuer,
                "subject": result.subject,
                "principal_is_user": result.principal == fw.auth.user(request),
            }
        )

    @app.route("GET /private/{rest...}")
    async def private(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse({"page": request.url.path, "user": user.account_id if user else None})

    app._extensions = [extension]  # compose with explicit settings instead of the parsed configuration
    return app
