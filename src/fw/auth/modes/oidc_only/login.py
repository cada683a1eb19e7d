"""``GET login_path`` sends the browser to the provider; ``GET callback_path`` brings it back signed in.

The login sealed its secrets (state, nonce, PKCE verifier, return path) into the browser's
login-state cookie; the callback takes the one attempt its ``state`` names, exchanges the code,
verifies the ID token, applies admission, resolves the account and starts the session. Any
failure is a problem document and no session; the attempts of other tabs stay valid.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.accounts import Account, Identity
from fw.auth.browser.answers import unavailable
from fw.auth.browser.cookies import cookie_secure, expire_cookie, set_cookie
from fw.auth.browser.login_state import LOGIN_COOKIE, LOGIN_LIFETIME, LoginAttempt
from fw.auth.browser.origins import Origins
from fw.auth.browser.redirects import safe_return_path
from fw.auth.browser.signin import sign_in
from fw.auth.modes.oidc_only.started import Started
from fw.auth.oidc import (
    OidcError,
    PendingLogin,
    ProviderError,
    ProviderMetadata,
    ProviderUnavailable,
    TokenRejected,
    authorization_url,
    exchange_code,
    reconfirm_prompt,
    verify_id_token,
)
from fw.auth.sessions.manager import RECONFIRM_COOKIE, SessionSummary
from fw.auth.stores.errors import StoreUnavailable
from fw.problems import Problem
from fw.settings import AuthSettings

logger = logging.getLogger("fw.auth")
_ERROR_CODE = re.compile(r"[^A-Za-z0-9_.-]")

#: A longer ``?next=`` is dropped for ``post_login_path`` (the sealed login cookie must stay small).
MAX_NEXT_BYTES = 1024


def _login_failed(detail: str, status: int = 400, code: str = "login_failed") -> Problem:
    return Problem(detail, status=status, code=code, title="Sign-in failed")


#: Asked after the account resolved, before the session starts: may this account sign in through
#: the provider? (``oidc_passkey`` keeps provider sign-in for recovery only when its policy says so.)
AccountGate = Callable[[Account], Awaitable[bool]]


class OidcLogin:
    """The login and callback endpoints of ``oidc_only`` (and of ``oidc_passkey``)."""

    def __init__(
        self,
        auth: AuthSettings,
        origins: Origins,
        started: Callable[[], Started],
        account_gate: AccountGate | None = None,
    ) -> None:
        self.auth = auth
        self.oidc = auth.oidc
        self.origins = origins
        self.started = started
        self.account_gate = account_gate

    async def _metadata(self) -> ProviderMetadata:
        try:
            return await self.started().provider.metadata()
        except OidcError as error:
            logger.error("identity provider discovery failed: %s", error)
            raise Problem(
                "the identity provider cannot be reached", status=503, code="provider_unavailable"
            ) from None

    async def login(self, request: Request) -> Response:
        target = safe_return_path(request.query_params.get("next")) or self.auth.post_login_path
        if len(target.encode()) > MAX_NEXT_BYTES:
            target = self.auth.post_login_path  # keeps the sealed login cookie within browser limits
        redirect_uri = self.origins.redirect_uri_for(request)
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
        logins = self.started().logins
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
        logins = self.started().logins
        attempts = logins.open(request.cookies.get(LOGIN_COOKIE))
        attempt, others = logins.take(attempts, request.query_params.get("state", ""))
        try:
            response = await self._finish_login(request, attempt, bool(attempts))
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
        self, request: Request, attempt: LoginAttempt | None, any_pending: bool
    ) -> Response:
        params = request.query_params
        if not any_pending:
            raise _login_failed(
                f"no sign-in is in progress in this browser; start again at {self.auth.login_path}"
            )
        started = self.started()
        provider = started.provider
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
        if not await self._admits(started, verified.issuer, claims):
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
            account = await started.accounts.resolve(identity)
        except StoreUnavailable as error:
            logger.error("account store unavailable during sign-in: %s", error)
            raise unavailable("account store") from None
        if account is None or not account.active:
            raise _login_failed(
                "this identity is not admitted to the application", status=403, code="not_admitted"
            )
        if self.account_gate is not None and not await self.account_gate(account):
            raise _login_failed(
                "this account signs in with its passkey; provider sign-in is not its recovery",
                status=403,
                code="passkey_required",
            )
        summary = SessionSummary(
            account_id=account.account_id,
            display_name=account.display_name or identity.display_name,
            email=account.email or identity.email,
            issuer=verified.issuer,
            key=str(value),
            auth_time=verified.auth_time,
        )
        cookies = await sign_in(request, started.sessions, started.accounts, summary)
        target = safe_return_path(attempt.next) or self.auth.post_login_path
        response = RedirectResponse(target, status_code=303)
        for cookie in cookies:
            response.headers.append("set-cookie", cookie)
        return response

    async def _admits(self, started: Started, issuer: str, claims: dict[str, Any]) -> bool:
        if self.oidc.admission == "existing":
            return True  # the resolver decides: it may not create accounts
        try:
            return await started.admission.admits(issuer, claims)
        except StoreUnavailable as error:
            logger.error("allow-list unavailable during sign-in: %s", error)
            raise unavailable("account store") from None
