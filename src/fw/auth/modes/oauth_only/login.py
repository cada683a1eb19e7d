"""``GET login_path`` sends the browser to the provider; ``GET callback_path`` brings it back signed in.

The login seals the attempt (state, PKCE verifier, redirect URI, return path) into the
browser's login-state cookie. The callback takes the attempt its ``state`` names, redeems the
code and looks the user up (the access token ends there), applies admission to the profile
claims, resolves the account linked to (provider, identity claim) and starts the session,
marked ``method = "oauth"`` with the login time as its proof time. Any failure is a problem
document and no session.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.accounts import Identity
from fw.auth.assurance import stepup
from fw.auth.assurance.stepup import StepUp
from fw.auth.browser import attempts
from fw.auth.browser.answers import login_failed, provider_unavailable
from fw.auth.browser.completion import admit, land_signed_in, resolve_account
from fw.auth.browser.login_state import LoginAttempt
from fw.auth.browser.origins import Origins
from fw.auth.modes.oauth_only.started import Started
from fw.auth.oauth import (
    OauthError,
    OauthProvider,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    authorization_url,
    retry_after,
    sign_in_profile,
)
from fw.auth.oidc import PendingLogin
from fw.auth.sessions.manager import SessionSummary
from fw.auth.settings import AuthSettings
from fw.auth.stores.interfaces import CeremonyStore
from fw.problems import Problem

logger = logging.getLogger("fw.auth")


class OauthLogin:
    """The login and callback endpoints of ``oauth_only``."""

    def __init__(
        self,
        auth: AuthSettings,
        provider: OauthProvider,
        origins: Origins,
        started: Callable[[], Started],
        ceremonies: Callable[[], CeremonyStore] | None = None,
    ) -> None:
        self.auth = auth
        self.oauth = auth.oauth
        self.provider = provider
        self.origins = origins
        self.started = started
        self.ceremonies = ceremonies

    async def login(self, request: Request) -> Response:
        target = attempts.return_target(request, self.auth.post_login_path)
        redirect_uri = self.origins.redirect_uri_for(request)
        pending = PendingLogin.new(redirect_uri)
        # The provider takes no max_age and says no auth_time: a "step-up" here is a new login of
        # the same account, and its login time becomes the session's proof time.
        step = stepup.begin(request, stepup.requested_window(request))
        attempt = attempts.new_attempt(pending, target, step, nonce="")  # no ID token to bind a nonce to
        url = authorization_url(
            self.provider, client_id=self.oauth.client_id, pending=pending, scopes=self.oauth.scopes
        )
        return await attempts.send_to_provider(request, self.started().logins, attempt, url)

    async def callback(self, request: Request) -> Response:
        async def finish(attempt: LoginAttempt | None, any_pending: bool) -> Response:
            return await self._finish(request, attempt, any_pending)

        return await attempts.take_callback(request, self.started().logins, finish)

    async def _finish(self, request: Request, attempt: LoginAttempt | None, any_pending: bool) -> Response:
        if not any_pending:
            raise attempts.no_attempt(self.auth.login_path)
        if attempt is None:
            raise attempts.foreign_state()
        code = attempts.check_callback(request.query_params)
        started = self.started()
        claims = await self._profile(started, code, attempts.pending_login(attempt))
        issuer = self.provider.name
        value = claims.get(self.oauth.identity_claim)
        if not isinstance(value, str) or not value:
            raise login_failed(f"the provider's profile has no {self.oauth.identity_claim}")
        step = StepUp.from_dict(attempt.step_up) if attempt.step_up is not None else None
        login_time = int(time.time())  # no ID token says when: the login is the proof
        if step is not None:
            stepup.check_proof(step, issuer=issuer, key=value, auth_time=login_time)
        await admit(started.admission, self.oauth.admission, issuer, claims)
        identity = Identity(
            issuer=issuer,
            claim=self.oauth.identity_claim,
            value=value,
            claims=claims,
            create=step is None and self.oauth.auto_provision and self.oauth.admission != "existing",
        )
        account = await resolve_account(started.accounts, identity)
        if step is not None:
            return await stepup.land(
                request,
                step,
                account.account_id,
                login_time,
                started.sessions,
                self.ceremonies,
                attempt.next,
                self.auth.post_login_path,
            )
        summary = SessionSummary(
            account_id=account.account_id,
            display_name=account.display_name or identity.display_name,
            email=account.email,  # the provider reports no e-mail; only the resolver may know one
            issuer=issuer,
            key=value,
            auth_time=login_time,
            method="oauth",
            provider=issuer,
            subject=str(claims["sub"]),
            username=str(claims.get("preferred_username", "")),
            avatar_url=str(claims.get("picture", "")),
        )
        return await land_signed_in(
            request, started.sessions, started.accounts, summary, attempt.next, self.auth.post_login_path
        )

    async def _profile(self, started: Started, code: str, pending: PendingLogin) -> dict[str, object]:
        """The signed-in user's claims; every provider failure becomes the answer for the browser."""
        try:
            return await sign_in_profile(
                started.http,
                self.provider,
                client_id=self.oauth.client_id,
                client_secret=self.oauth.client_secret,
                code=code,
                pending=pending,
            )
        except ProviderUnavailable as error:
            logger.error("provider %s unavailable during sign-in: %s", self.provider.name, error)
            raise provider_unavailable() from None
        except RateLimited as error:
            logger.warning("provider %s rate limit reached during sign-in: %s", self.provider.name, error)
            raise Problem(
                "the provider is busy; try signing in again later",
                status=429,
                code="rate_limited",
                title="Sign-in failed",
                headers={"retry-after": str(retry_after(error))},
            ) from None
        except ProviderError as error:
            logger.info("provider %s refused the sign-in: %s", self.provider.name, error)
            raise login_failed(error.reason) from None
        except OauthError as error:
            logger.warning("provider %s answered something unusable: %s", self.provider.name, error)
            raise login_failed(error.reason) from None
