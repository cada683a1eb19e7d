"""``auth.mode = "oidc_only"``: sign in with an OpenID provider, keep a browser session.

Composition only: the protocol lives in :mod:`fw.auth.oidc`, sessions in
:mod:`fw.auth.sessions`, admission and protection in their own modules. This module checks the
startup preconditions, mounts login / callback / logout and installs the session middleware.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from fw.auth import admission as admissions
from fw.auth import runtime
from fw.auth.accounts import AccountSeams, Identity, StoredAccounts
from fw.auth.oidc import (
    OidcError,
    PendingLogin,
    Provider,
    ProviderError,
    ProviderMetadata,
    ProviderUnavailable,
    TokenRejected,
    authorization_url,
    exchange_code,
    reconfirm_prompt,
    verify_id_token,
)
from fw.auth.protection import Protection
from fw.auth.redirects import loopback_host_header, safe_return_path
from fw.auth.sessions.cookies import expire_cookie, set_cookie
from fw.auth.sessions.login_state import LOGIN_COOKIE, LOGIN_LIFETIME, LoginAttempt, LoginStates
from fw.auth.sessions.manager import (
    RECONFIRM_COOKIE,
    SESSION_COOKIE,
    Sessions,
    SessionSummary,
)
from fw.auth.sessions.middleware import BrowserAuth, BrowserSessionMiddleware, cookie_secure
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import AuthStore, SessionStore
from fw.auth.stores.records import RecordKind
from fw.auth.stores.select import check_auth_backend, open_auth_store, open_session_store
from fw.errors import StartupError
from fw.problems import Problem
from fw.settings import AuthSettings, OidcSettings, RdbSettings, SessionSettings

logger = logging.getLogger("fw.auth")
_ERROR_CODE = re.compile(r"[^A-Za-z0-9_.-]")

ADMISSIONS = (*admissions.ADMISSIONS, "existing")
LOGOUT_SCOPES = ("reconfirm", "global")
RECONFIRM_LIFETIME = 30 * 24 * 3600
#: A longer ``?next=`` is dropped for ``post_login_path`` (the sealed login cookie must stay small).
MAX_NEXT_BYTES = 1024


@dataclass(frozen=True)
class BrowserLoginSettings:
    """Tables ``oidc_only`` reads: ``[auth]`` and ``[auth.oidc]``, ``[session]``, ``[middleware.rdb]``."""

    auth: AuthSettings
    session: SessionSettings
    rdb: RdbSettings


def check_settings(settings: BrowserLoginSettings) -> None:
    """The preconditions of this mode that need no network; raises :class:`fw.StartupError`.

    The table rules every mode shares (paths, protection patterns, issuer transport, the removed
    keys) already ran in :mod:`fw.auth.mode_rules` before this extension was built.
    """
    auth, oidc, session = settings.auth, settings.auth.oidc, settings.session
    if not session.enabled:
        raise StartupError(
            "session.enabled", False, "browser login needs sessions; set session.enabled = true"
        )
    check_auth_backend(auth.backend)
    for name in ("login_path", "callback_path", "logout_path", "post_login_path"):
        value = getattr(auth, name)
        if not value.startswith("/") or "//" in value or "\\" in value:
            raise StartupError(f"auth.{name}", value, "must be a root-relative path without //")
    _check_redirect_url(oidc.redirect_url, oidc.allow_loopback_http)
    if oidc.admission not in ADMISSIONS:
        raise StartupError("auth.oidc.admission", oidc.admission, f"use one of {', '.join(ADMISSIONS)}")
    if oidc.admission == "existing" and oidc.auto_provision:
        raise StartupError(
            "auth.oidc.auto_provision", True, "admission = existing requires auto_provision = false"
        )
    if oidc.admission != "existing":
        found = admissions.admission_problem(
            oidc.admission, oidc.claim.path, oidc.claim.values, oidc.claim.match
        )
        if found:
            key, fix = found
            raise StartupError(f"auth.oidc.{key}", getattr(oidc, key, None) or _claim_value(oidc, key), fix)
    if not oidc.identity_claim:
        raise StartupError("auth.oidc.identity_claim", "", "name a stable, unique claim such as sub")
    for scope in oidc.scopes:
        if not scope or any(ch.isspace() for ch in scope):
            raise StartupError("auth.oidc.scopes", scope, "one scope per entry")
    if oidc.logout_scope not in LOGOUT_SCOPES:
        raise StartupError("auth.oidc.logout_scope", oidc.logout_scope, "use reconfirm or global")
    if auth.session.ttl.total_seconds() <= 0:
        raise StartupError(
            "auth.session.ttl", str(auth.session.ttl), "must be a positive duration such as 24h"
        )
    if auth.session.idle_timeout.total_seconds() < 0:
        raise StartupError(
            "auth.session.idle_timeout", str(auth.session.idle_timeout), "use 0s (off) or more"
        )


def _claim_value(oidc: OidcSettings, key: str) -> Any:
    return getattr(oidc.claim, key.partition(".")[2], None)


def _check_redirect_url(url: str, loopback_dev: bool) -> None:
    if not url or url.startswith("/"):
        if not loopback_dev:
            raise StartupError(
                "auth.oidc.redirect_url",
                url,
                "set the absolute callback URL registered at the provider (https://host/auth/callback); "
                "a request-derived URL is only for loopback development with allow_loopback_http = true",
            )
        if url and "//" in url:
            raise StartupError("auth.oidc.redirect_url", url, "a root path must not contain //")
        return
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise StartupError(
            "auth.oidc.redirect_url", url, "must be an absolute URL such as https://host/auth/callback"
        )
    if parts.scheme == "http" and not (loopback_dev and loopback_host_header(parts.netloc)):
        raise StartupError("auth.oidc.redirect_url", url, "must be https outside loopback development")


def _login_failed(detail: str, status: int = 400, code: str = "login_failed") -> Problem:
    return Problem(detail, status=status, code=code, title="Sign-in failed")


class OidcOnly:
    """The ``oidc_only`` extension plugged into the App."""

    def __init__(
        self,
        settings: BrowserLoginSettings,
        *,
        http: httpx.AsyncClient | None = None,
        app: object | None = None,
    ) -> None:
        self.app = app
        self.settings = settings
        self.auth = settings.auth
        self.oidc = settings.auth.oidc
        self._http = http
        self.provider: Provider | None = None
        self.auth_store: AuthStore | None = None
        self.accounts = AccountSeams(app)
        self._lent: runtime.RunningAuth | None = None
        self.store: SessionStore | None = None
        self.admission: admissions.Admission | None = None
        self.protection = Protection.from_patterns(self.auth.protection.include, self.auth.protection.exclude)
        self.sessions_ready: Sessions | None = None
        self.logins: LoginStates | None = None
        self.browser = BrowserAuth(
            sessions=lambda: self.sessions,
            accounts=self.accounts,
            protection=self.protection,
            login_path=self.auth.login_path,
            unauthenticated=self.auth.protection.unauthenticated,
            exempt=frozenset({self.auth.login_path, self.auth.callback_path, self.auth.logout_path}),
        )

    # Extension protocol.
    def routes(self) -> Sequence[BaseRoute]:
        return [
            Route(self.auth.login_path, self.login, methods=["GET"]),
            Route(self.auth.callback_path, self.callback, methods=["GET"]),
            Route(self.auth.logout_path, self.logout, methods=["POST"]),
        ]

    def middleware(self) -> Sequence[Middleware]:
        return [Middleware(BrowserSessionMiddleware, auth=self.browser)]

    async def startup(self) -> None:
        check_settings(self.settings)
        kinds: list[RecordKind] = ["accounts", "allowlist"]
        if self.settings.session.backend == "rdb":
            kinds.append("sessions")
        auth_store = await open_auth_store(self.auth.backend, self.settings.rdb.dsn, kinds)
        store: SessionStore | None = None
        try:
            store = open_session_store(self.settings.session, auth_store)
            await store.check()
            try:
                logins = LoginStates(await store.shared_key())
            except StoreUnavailable as error:
                raise StartupError(
                    "session.backend",
                    self.settings.session.backend,
                    f"the session store cannot answer ({error})",
                ) from None
        except BaseException:
            if store is not None:
                await store.close()
            await auth_store.close()
            raise
        self.auth_store = auth_store
        self.admission = admissions.build(self.oidc, auth_store.allowlist)
        self.accounts.default = StoredAccounts(auth_store.accounts)
        self.store = store
        self.logins = logins
        self.sessions_ready = Sessions(
            store,
            ttl=self.auth.session.ttl.total_seconds(),
            idle_timeout=self.auth.session.idle_timeout.total_seconds(),
        )
        self.provider = Provider(
            self.oidc.issuer, allow_loopback_http=self.oidc.allow_loopback_http, http=self._http
        )
        self._lent = runtime.RunningAuth(self.app, auth_store, self.auth)
        runtime.start(self._lent)

    async def shutdown(self) -> None:
        if self._lent is not None:
            runtime.stop(self._lent)
        if self.store is not None:
            await self.store.close()
        if self.provider is not None and self._http is None:
            await self.provider.aclose()
        if self.auth_store is not None:
            await self.auth_store.close()
        self.auth_store = self.store = self.provider = self.sessions_ready = self._lent = None
        self.logins = self.admission = self.accounts.default = None

    # Helpers.
    @property
    def sessions(self) -> Sessions:
        if self.sessions_ready is None:
            raise Problem("authentication is not started", status=503, code="unavailable")
        return self.sessions_ready

    def _logins(self) -> LoginStates:
        if self.logins is None:
            raise Problem("authentication is not started", status=503, code="unavailable")
        return self.logins

    async def _metadata(self) -> ProviderMetadata:
        try:
            return await self._provider().metadata()
        except OidcError as error:
            logger.error("identity provider discovery failed: %s", error)
            raise Problem(
                "the identity provider cannot be reached", status=503, code="provider_unavailable"
            ) from None

    def _provider(self) -> Provider:
        if self.provider is None:
            raise Problem("authentication is not started", status=503, code="unavailable")
        return self.provider

    def redirect_uri_for(self, request: Request) -> str:
        """The configured redirect URL or, in loopback development, one derived from the request."""
        configured = self.oidc.redirect_url
        if configured and not configured.startswith("/"):
            return configured
        host = request.headers.get("host", "")
        if not (self.oidc.allow_loopback_http and loopback_host_header(host)):
            raise Problem(
                "auth.oidc.redirect_url is not set and this request does not come from a loopback origin",
                status=400,
                code="login_unavailable",
            )
        return f"{request.url.scheme}://{host}{configured or self.auth.callback_path}"

    def _public_origin(self, request: Request) -> str:
        """The origin browsers use: that of the configured ``redirect_url`` (right behind a proxy
        terminating TLS, where the request itself looks like plain http), else the request's."""
        configured = self.oidc.redirect_url
        if configured and not configured.startswith("/"):
            parts = urlsplit(configured)
            return f"{parts.scheme}://{parts.netloc}"
        return f"{request.url.scheme}://{request.headers.get('host', '')}"

    def _allowed_origins(self, request: Request) -> set[str]:
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        return {own.lower(), self._public_origin(request).lower()}

    # Endpoints.
    async def login(self, request: Request) -> Response:
        target = safe_return_path(request.query_params.get("next")) or self.auth.post_login_path
        if len(target.encode()) > MAX_NEXT_BYTES:
            target = self.auth.post_login_path  # keeps the sealed login cookie within browser limits
        redirect_uri = self.redirect_uri_for(request)
        metadata = await self._metadata()
        pending = PendingLogin.new(redirect_uri)
        prompt = reconfirm_prompt(metadata) if request.cookies.get(RECONFIRM_COOKIE) else ""
        attempt = LoginAttempt(
            state=pending.state,
            nonce=pending.nonce,
            verifier=pending.code_verifier,
            redirect_uri=redirect_uri,
            next=target,
            expires_at=time.time() + LOGIN_LIFETIME,
        )
        logins = self._logins()
        attempts = logins.open(request.cookies.get(LOGIN_COOKIE))  # other tabs' attempts stay valid
        url = authorization_url(
            metadata, client_id=self.oidc.client_id, pending=pending, scopes=self.oidc.scopes, prompt=prompt
        )
        response = RedirectResponse(url, status_code=302)
        response.headers.append(
            "set-cookie",
            set_cookie(
                LOGIN_COOKIE,
                logins.seal([*attempts, attempt]),
                secure=cookie_secure(request),
                max_age=int(LOGIN_LIFETIME),
            ),
        )
        response.headers["cache-control"] = "no-store"
        return response

    async def callback(self, request: Request) -> Response:
        secure = cookie_secure(request)
        logins = self._logins()
        attempts = logins.open(request.cookies.get(LOGIN_COOKIE))
        attempt, others = logins.take(attempts, request.query_params.get("state", ""))
        try:
            response = await self._finish_login(request, secure, attempt, bool(attempts))
        except Problem as problem:
            response = problem.response()
        if others:
            remaining = int(min(a.expires_at for a in others) - time.time())
            cookie = set_cookie(LOGIN_COOKIE, logins.seal(others), secure=secure, max_age=max(remaining, 1))
        else:
            cookie = expire_cookie(LOGIN_COOKIE, secure=secure)
        response.headers.append("set-cookie", cookie)
        response.headers["cache-control"] = "no-store"
        return response

    async def _finish_login(
        self, request: Request, secure: bool, attempt: LoginAttempt | None, any_pending: bool
    ) -> Response:
        params = request.query_params
        if not any_pending:
            raise _login_failed(
                f"no sign-in is in progress in this browser; start again at {self.auth.login_path}"
            )
        provider = self._provider()
        if attempt is None:
            raise _login_failed("the sign-in response does not belong to this browser (state mismatch)")
        metadata = await self._metadata()
        # RFC 9207: a provider that promises ``iss`` in its answers must send it; mix-up defence.
        iss_promised = metadata.raw.get("authorization_response_iss_parameter_supported") is True
        if ("iss" in params or iss_promised) and params.get("iss", "").rstrip("/") != provider.issuer:
            raise _login_failed("the sign-in response comes from another issuer")
        if "error" in params:
            # An OAuth error code is [A-Za-z_]; anything else is dropped before it is echoed or logged.
            error = _ERROR_CODE.sub("", params["error"])[:64] or "an unnamed error"
            logger.info(
                "identity provider refused the sign-in: %s %r",
                error,
                params.get("error_description", "")[:256],
            )
            raise _login_failed(
                f"the identity provider answered {error}", status=403 if error == "access_denied" else 400
            )
        code = params.get("code", "")
        if not code:
            raise _login_failed("the sign-in response carries no code")
        login = PendingLogin(
            state=attempt.state,
            nonce=attempt.nonce,
            code_verifier=attempt.verifier,
            redirect_uri=attempt.redirect_uri,
        )
        try:
            tokens = await exchange_code(
                provider,
                client_id=self.oidc.client_id,
                client_secret=self.oidc.client_secret,
                code=code,
                pending=login,
            )
            verified = await verify_id_token(
                provider, tokens.id_token, client_id=self.oidc.client_id, nonce=login.nonce
            )
        except ProviderUnavailable as error:
            logger.error("identity provider unavailable during sign-in: %s", error)
            raise Problem(
                "the identity provider cannot be reached", status=503, code="provider_unavailable"
            ) from None
        except (ProviderError, TokenRejected) as error:
            logger.info("sign-in rejected: %s", error)
            raise _login_failed(error.reason) from None
        except OidcError as error:
            # Not this browser's fault: the provider answered something unusable (no id_token, a
            # malformed key set). A gateway error, so operators look at the provider.
            logger.error("identity provider answered something unusable during sign-in: %s", error)
            raise Problem(
                "the identity provider answered something fw cannot use",
                status=502,
                code="provider_error",
                title="Sign-in failed",
            ) from None
        claims = verified.claims
        value = claims.get(self.oidc.identity_claim)
        if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
            raise _login_failed(f"the verified identity has no {self.oidc.identity_claim} claim")
        if not await self._admits(verified.issuer, claims):
            raise _login_failed(
                "this identity is not admitted to the application", status=403, code="not_admitted"
            )
        identity = Identity(
            issuer=verified.issuer,
            claim=self.oidc.identity_claim,
            value=str(value),
            claims=claims,
            create=self.oidc.auto_provision and self.oidc.admission != "existing",
        )
        try:
            account = await self.accounts.resolve(identity)
        except StoreUnavailable as error:
            logger.error("account store unavailable during sign-in: %s", error)
            raise Problem(
                "the account store cannot answer right now", status=503, code="unavailable"
            ) from None
        if account is None or not account.active:
            raise _login_failed(
                "this identity is not admitted to the application", status=403, code="not_admitted"
            )
        summary = SessionSummary(
            account_id=account.account_id,
            display_name=account.display_name or identity.display_name,
            email=account.email or identity.email,
            issuer=verified.issuer,
            key=str(value),
            auth_time=verified.auth_time,
        )
        try:
            session_value = await self.sessions.start(summary, previous=request.cookies.get(SESSION_COOKIE))
        except StoreUnavailable:
            raise Problem(
                "the session store cannot answer right now", status=503, code="unavailable"
            ) from None
        self.accounts.mark_read(account.account_id)
        target = safe_return_path(attempt.next) or self.auth.post_login_path
        response = RedirectResponse(target, status_code=303)
        ttl = int(self.sessions.ttl)
        response.headers.append(
            "set-cookie", set_cookie(SESSION_COOKIE, session_value, secure=secure, max_age=ttl)
        )
        if request.cookies.get(RECONFIRM_COOKIE):
            response.headers.append("set-cookie", expire_cookie(RECONFIRM_COOKIE, secure=secure))
        return response

    async def _admits(self, issuer: str, claims: dict[str, Any]) -> bool:
        if self.oidc.admission == "existing":
            return True  # the resolver decides: it may not create accounts
        if self.admission is None:
            raise Problem("authentication is not started", status=503, code="unavailable")
        try:
            return await self.admission.admits(issuer, claims)
        except StoreUnavailable as error:
            logger.error("allow-list unavailable during sign-in: %s", error)
            raise Problem(
                "the account store cannot answer right now", status=503, code="unavailable"
            ) from None

    def _cross_origin(self, request: Request) -> bool:
        """Whether a logout POST comes from a page of another origin.

        ``Origin`` decides when present (``null``, sent from sandboxed or privacy-sensitive
        contexts, is not ours either); without it, ``Referer`` decides; without both (old
        browsers, non-browser clients) the ``SameSite=Lax`` session cookie is the protection,
        as a cross-site POST does not carry it.
        """
        if request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return True
        allowed = self._allowed_origins(request)
        origin = request.headers.get("origin")
        if origin is not None:
            return origin.lower() not in allowed
        referer = request.headers.get("referer")
        if referer:
            try:
                parts = urlsplit(referer)
            except ValueError:
                return True
            return f"{parts.scheme}://{parts.netloc}".lower() not in allowed
        return False

    async def logout(self, request: Request) -> Response:
        if self._cross_origin(request):
            raise Problem("cross-origin logout refused", status=403, code="cross_origin")
        try:
            form = await request.form()
            requested = form.get("scope")
        except Exception:  # an unreadable form (bad multipart...) requests nothing beyond the default
            requested = None
        scope = self.oidc.logout_scope
        if requested == "global" and self.oidc.allow_global_logout_request:
            scope = "global"
        secure = cookie_secure(request)
        value = request.cookies.get(SESSION_COOKIE)
        if value:
            try:
                await self.sessions.end(value)
            except StoreUnavailable:
                raise Problem(
                    "the session store cannot answer right now", status=503, code="unavailable"
                ) from None
        origin_root = f"{self._public_origin(request)}/"
        target = "/"
        if scope == "global":
            try:
                metadata = await self._provider().metadata()
                endpoint = metadata.end_session_endpoint
            except OidcError:
                endpoint = ""
            if endpoint:
                separator = "&" if urlsplit(endpoint).query else "?"
                query = urlencode({"client_id": self.oidc.client_id, "post_logout_redirect_uri": origin_root})
                target = f"{endpoint}{separator}{query}"
        response = RedirectResponse(target, status_code=303)
        for name in (SESSION_COOKIE, LOGIN_COOKIE):
            response.headers.append("set-cookie", expire_cookie(name, secure=secure))
        # Next authorization demands proof and an account choice instead of the provider's own session.
        response.headers.append(
            "set-cookie", set_cookie(RECONFIRM_COOKIE, "1", secure=secure, max_age=RECONFIRM_LIFETIME)
        )
        response.headers["cache-control"] = "no-store"
        return response


def extension(app: object, auth: AuthSettings, rdb_dsn: str) -> OidcOnly:
    """The plugin's factory: ``[session]`` is read here, as only the browser modes use it."""
    from fw import configuration
    from fw.settings import SessionSettings

    session = configuration.config(SessionSettings)
    return OidcOnly(BrowserLoginSettings(auth, session, RdbSettings(rdb_dsn)), app=app)
