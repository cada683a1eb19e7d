"""The development OpenID provider as a Starlette application.

It speaks the real protocol (discovery, authorization code with PKCE, signed ID tokens, JWKS,
userinfo, end-session, RFC 8628 device authorization) so the relying party is exercised exactly
as in production; only the sign-in is fake: a user picker, no password.
"""

from __future__ import annotations

import html
import secrets
import time
from typing import Any
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from fw.devidp.loopback import LoopbackOnly, redirect_allowed
from fw.devidp.model import AuthorizationGrant, DeviceGrant, DevUser, ProviderState, RefreshGrant
from fw.devidp.pages import append_query, basic_credentials, oauth_error, picker_form, request_params, s256
from fw.devidp.pages import page as _plain_page
from fw.responses import JSONResponse

TOKEN_LIFETIME = 600
CODE_LIFETIME = 120
DEVICE_LIFETIME = 600
FOOTER = "fw development identity provider: no password is checked."


def _page(title: str, body: str, status: int = 200) -> Response:
    return _plain_page(title, body, FOOTER, status)


class DevProvider:
    """Holds the signing key and state; ``asgi`` is the application to serve on loopback.

    ``key`` is the signing key to publish and sign with (``fw dev`` keeps one per project in
    ``.fw/``, :mod:`fw.devidp.stable`); without it a fresh one is drawn.
    """

    def __init__(self, state: ProviderState, issuer: str, key: RSAKey | None = None) -> None:
        self.state = state
        self.issuer = issuer.rstrip("/")
        self.key = key or RSAKey.generate_key(
            2048, parameters={"kid": secrets.token_urlsafe(8), "use": "sig"}
        )
        self.app = Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self.discovery, methods=["GET"]),
                Route("/authorize", self.authorize, methods=["GET", "POST"]),
                Route("/token", self.token, methods=["POST"]),
                Route("/userinfo", self.userinfo, methods=["GET", "POST"]),
                Route("/jwks", self.jwks, methods=["GET"]),
                Route("/end_session", self.end_session, methods=["GET", "POST"]),
                Route("/device_authorization", self.device_authorization, methods=["POST"]),
                Route("/device", self.device, methods=["GET", "POST"]),
            ]
        )
        #: The application to serve on loopback.
        self.asgi = LoopbackOnly(self.app, FOOTER)

    # Discovery and keys.
    async def discovery(self, request: Request) -> Response:
        prompts = ["none", "login", "consent"]
        if self.state.advertise_select_account:
            prompts.append("select_account")
        return JSONResponse(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "userinfo_endpoint": f"{self.issuer}/userinfo",
                "jwks_uri": f"{self.issuer}/jwks",
                "end_session_endpoint": f"{self.issuer}/end_session",
                "device_authorization_endpoint": f"{self.issuer}/device_authorization",
                "response_types_supported": ["code"],
                "grant_types_supported": [
                    "authorization_code",
                    "refresh_token",
                    "urn:ietf:params:oauth:grant-type:device_code",
                ],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic",
                    "client_secret_post",
                    "none",
                ],
                "scopes_supported": ["openid", "profile", "email", "offline_access"],
                "prompt_values_supported": prompts,
                "claims_supported": ["sub", "name", "email", "email_verified", "auth_time", "nonce"],
            }
        )

    async def jwks(self, request: Request) -> Response:
        public = self.key.as_dict(private=False)
        public["alg"] = "RS256"
        return JSONResponse({"keys": [public]})

    # Authorization endpoint.
    async def authorize(self, request: Request) -> Response:
        params = await request_params(request)
        client = self.state.clients.get(params.get("client_id", ""))
        redirect_uri = params.get("redirect_uri", "")
        if client is None:
            return _page("Unknown client", "<p>The client_id is not registered.</p>", 400)
        if not redirect_allowed(redirect_uri, client.redirect_uris):
            return _page("Unregistered redirect_uri", f"<p>{html.escape(redirect_uri)}</p>", 400)
        state = params.get("state", "")

        def fail(error: str, description: str) -> Response:
            query = {"error": error, "error_description": description, "iss": self.issuer}
            if state:
                query["state"] = state
            return RedirectResponse(append_query(redirect_uri, query), status_code=302)

        if params.get("response_type") != "code":
            return fail("unsupported_response_type", "only response_type=code is supported")
        scopes = params.get("scope", "").split()
        if "openid" not in scopes:
            return fail("invalid_scope", "the openid scope is required")
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return fail("invalid_request", "PKCE with code_challenge_method=S256 is required")
        if request.method == "GET":
            self.state.authorizations.append(dict(params))
        chosen = params.get("user") if request.method == "POST" else self.state.preset_user
        if params.get("deny") == "1":
            return fail("access_denied", "the user declined")
        if not chosen:
            return self._picker(params)
        user = self.state.user(chosen)
        if user is None:
            return self._picker(params)
        code = secrets.token_urlsafe(32)
        self.state.codes[code] = AuthorizationGrant(
            client_id=client.client_id,
            redirect_uri=redirect_uri,
            code_challenge=params["code_challenge"],
            nonce=params.get("nonce", ""),
            scope=" ".join(scopes),
            sub=user.sub,
            auth_time=self.state.proof_time(
                user.sub, prompt=params.get("prompt", ""), max_age=params.get("max_age"), now=int(time.time())
            ),
            expires_at=time.time() + CODE_LIFETIME,
        )
        query = {"code": code, "iss": self.issuer}
        if state:
            query["state"] = state
        return RedirectResponse(append_query(redirect_uri, query), status_code=302)

    def _picker(self, params: dict[str, str]) -> Response:
        choices = [(u.sub, f"{u.name or u.sub} <{u.email}>") for u in self.state.users.values()]
        return _page("Choose a user", picker_form(f"{self.issuer}/authorize", params, choices))

    # Token endpoint.
    async def token(self, request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            basic = basic_credentials(header)
            if basic is None:
                return oauth_error("invalid_client", "malformed Basic credentials", 401)
            client_id, secret = basic
        client = self.state.clients.get(client_id)
        if client is None or (
            client.client_secret and not secrets.compare_digest(secret, client.client_secret)
        ):
            return oauth_error("invalid_client", "client authentication failed", 401)
        grant_type = form.get("grant_type", "")
        if grant_type == "authorization_code":
            return self._code_grant(form, client_id)
        if grant_type == "refresh_token":
            return self._refresh_grant(form, client_id)
        if grant_type == "urn:ietf:params:oauth:grant-type:device_code":
            return self._device_grant(form, client_id)
        return oauth_error("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")

    def _code_grant(self, form: dict[str, str], client_id: str) -> Response:
        grant = self.state.codes.pop(form.get("code", ""), None)
        if grant is None or grant.expires_at < time.time() or grant.client_id != client_id:
            return oauth_error("invalid_grant", "the code is unknown, used or expired")
        if form.get("redirect_uri") != grant.redirect_uri:
            return oauth_error("invalid_grant", "redirect_uri does not match the authorization request")
        verifier = form.get("code_verifier", "")
        if not verifier or not secrets.compare_digest(s256(verifier), grant.code_challenge):
            return oauth_error("invalid_grant", "PKCE verification failed")
        return self._issue(client_id, grant.sub, grant.scope, grant.auth_time, grant.nonce)

    def _refresh_grant(self, form: dict[str, str], client_id: str) -> Response:
        grant = self.state.refresh_tokens.pop(form.get("refresh_token", ""), None)
        if grant is None or grant.client_id != client_id:
            return oauth_error("invalid_grant", "the refresh token is unknown or used")
        return self._issue(client_id, grant.sub, grant.scope, grant.auth_time, "")

    def _device_grant(self, form: dict[str, str], client_id: str) -> Response:
        device_code = form.get("device_code", "")
        grant = self.state.devices.get(device_code)
        if grant is None or grant.client_id != client_id or grant.redeemed:
            return oauth_error("invalid_grant", "unknown device_code")
        now = time.time()
        if grant.expires_at < now:
            return oauth_error("expired_token", "the device code expired")
        if grant.denied:
            return oauth_error("access_denied", "the user declined")
        if grant.sub is None:
            too_fast = grant.last_poll and now - grant.last_poll < grant.interval
            grant.last_poll = now
            if too_fast:
                grant.interval += 5
                return oauth_error("slow_down", "polling faster than the interval")
            return oauth_error("authorization_pending", "the user has not answered yet")
        grant.redeemed = True
        return self._issue(client_id, grant.sub, grant.scope, int(now), "")

    def _issue(self, client_id: str, sub: str, scope: str, auth_time: int | None, nonce: str) -> Response:
        user = self.state.user(sub)
        if user is None:
            return oauth_error("invalid_grant", "the user no longer exists")
        now = int(time.time())
        access_claims = {
            "iss": self.issuer,
            "sub": sub,
            "aud": client_id,
            "client_id": client_id,
            "iat": now,
            "exp": now + TOKEN_LIFETIME,
            "jti": secrets.token_urlsafe(12),
            "scope": scope,
        }
        access = jwt.encode({"alg": "RS256", "kid": self.key.kid, "typ": "at+jwt"}, access_claims, self.key)
        self.state.access_tokens[access] = sub
        id_claims: dict[str, Any] = {
            **user.id_claims(),
            "iss": self.issuer,
            "aud": client_id,
            "azp": client_id,
            "iat": now,
            "exp": now + TOKEN_LIFETIME,
        }
        if auth_time is not None:
            id_claims["auth_time"] = auth_time
        if nonce:
            id_claims["nonce"] = nonce
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME,
            "scope": scope,
            "id_token": jwt.encode({"alg": "RS256", "kid": self.key.kid}, id_claims, self.key),
        }
        if "offline_access" in scope.split():
            refresh = secrets.token_urlsafe(32)
            self.state.refresh_tokens[refresh] = RefreshGrant(client_id, sub, scope, auth_time)
            body["refresh_token"] = refresh
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    # Userinfo.
    async def userinfo(self, request: Request) -> Response:
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else ""
        sub = self.state.access_tokens.get(token)
        user = self.state.user(sub) if sub else None
        if user is None:
            return Response(status_code=401, headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
        return JSONResponse(user.id_claims())

    # End session (RP-initiated logout).
    async def end_session(self, request: Request) -> Response:
        params = dict(request.query_params)
        if request.method == "POST":
            params.update({k: v for k, v in (await request.form()).items() if isinstance(v, str)})
        self.state.end_sessions.append(params)
        target = params.get("post_logout_redirect_uri", "")
        if not target:
            return _page("Signed out", "<p>You are signed out of the development provider.</p>")
        client = self.state.clients.get(params.get("client_id", ""))
        registered = client.post_logout_redirect_uris if client else ()
        if not redirect_allowed(target, registered):
            return _page("Unregistered post_logout_redirect_uri", f"<p>{html.escape(target)}</p>", 400)
        if params.get("state"):
            target = append_query(target, {"state": params["state"]})
        return RedirectResponse(target, status_code=302)

    # Device authorization (RFC 8628).
    async def device_authorization(self, request: Request) -> Response:
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        client = self.state.clients.get(form.get("client_id", ""))
        if client is None:
            return oauth_error("invalid_client", "unknown client", 401)
        device_code = secrets.token_urlsafe(32)
        user_code = self.state.new_user_code()
        self.state.devices[device_code] = DeviceGrant(
            client_id=client.client_id,
            scope=form.get("scope", "openid"),
            user_code=user_code,
            expires_at=time.time() + DEVICE_LIFETIME,
            interval=self.state.device_interval,
        )
        verification = f"{self.issuer}/device"
        return JSONResponse(
            {
                "device_code": device_code,
                "user_code": user_code,
                "verification_uri": verification,
                "verification_uri_complete": f"{verification}?{urlencode({'user_code': user_code})}",
                "expires_in": DEVICE_LIFETIME,
                "interval": self.state.device_interval,
            },
            headers={"Cache-Control": "no-store"},
        )

    async def device(self, request: Request) -> Response:
        params = dict(request.query_params)
        if request.method == "POST":
            params.update({k: v for k, v in (await request.form()).items() if isinstance(v, str)})
        user_code = params.get("user_code", "")
        found = self.state.device_by_user_code(user_code) if user_code else None
        if request.method == "POST" and found is not None:
            _, grant = found
            if params.get("deny") == "1":
                grant.denied = True
                return _page("Device denied", "<p>The device was not signed in.</p>")
            if self.state.user(params.get("user", "")) is not None:
                grant.sub = params["user"]
                return _page("Device approved", "<p>You can return to your device.</p>")
        if found is None:
            body = (
                "<form method='post'><label>Code <input name='user_code' autocomplete='off'></label>"
                "<button type='submit'>Continue</button></form>"
            )
            return _page("Enter the code shown on your device", body, 200 if not user_code else 400)
        buttons = "".join(
            f"<li><button type='submit' name='user' value='{html.escape(u.sub)}'>"
            f"{html.escape(u.name or u.sub)}</button></li>"
            for u in self.state.users.values()
        )
        body = (
            "<form method='post'>"
            f"<input type='hidden' name='user_code' value='{html.escape(found[1].user_code)}'>"
            f"<ul>{buttons}</ul><button type='submit' name='deny' value='1'>Deny</button></form>"
        )
        return _page("Sign in a device", body)

    # Programmatic helpers for tests.
    def approve_device(self, user_code: str, sub: str) -> None:
        """Answer a pending device authorization as ``sub`` (what the /device page does)."""
        found = self.state.device_by_user_code(user_code)
        if found is None:
            raise LookupError(f"no pending device authorization with user code {user_code!r}")
        if self.state.user(sub) is None:
            raise LookupError(f"no development user {sub!r}")
        found[1].sub = sub

    def deny_device(self, user_code: str) -> None:
        found = self.state.device_by_user_code(user_code)
        if found is None:
            raise LookupError(f"no pending device authorization with user code {user_code!r}")
        found[1].denied = True

    def add_user(self, user: DevUser) -> None:
        self.state.users[user.sub] = user
