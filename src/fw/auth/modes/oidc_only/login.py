"""``GET login_path`` sends the browser to the provider; ``GET callback_path`` brings it back signed in.

The login sealed its secrets (state, nonce, PKCE verifier, return path) into the browser's
login-state cookie; the callback takes the one attempt its ``state`` names, exchanges the code,
verifies the ID token, applies admission, resolves the account and starts the session. Any
failure is a problem document and no session; the attempts of other tabs stay valid.

``?max_age=<seconds>`` from a signed-in browser makes the login a step-up
(:mod:`fw.auth.assurance.stepup`): ``prompt=login`` and ``max_age`` go to the provider, and the
callback re-proves the session's identity instead of starting a new one.

Every login asks for ``auth_time`` as an essential claim, so the session records when the person
proved who they are. A provider that still leaves it out leaves that time unknown (the arrival of
the callback is no proof time: the provider may have answered from a sign-in of days ago), so
guards needing a recent proof ask for a step-up; the first such sign-in is logged as a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.accounts import Account, Identity
from fw.auth.assurance import stepup
from fw.auth.assurance.stepup import StepUp
from fw.auth.browser.answers import login_failed, provider_unavailable
from fw.auth.browser.attempts import (
    check_callback,
    foreign_state,
    new_attempt,
    no_attempt,
    pending_login,
    return_target,
    send_to_provider,
    take_callback,
)
from fw.auth.browser.completion import admit, land_signed_in, resolve_account
from fw.auth.browser.login_state import LoginAttempt
from fw.auth.browser.origins import Origins
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
from fw.auth.sessions.marks import provider_marks
from fw.auth.settings import AuthSettings
from fw.auth.stores.interfaces import CeremonyStore
from fw.problems import Problem

logger = logging.getLogger("fw.auth")


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
        ceremonies: Callable[[], CeremonyStore] | None = None,
    ) -> None:
        self.auth = auth
        self.oidc = auth.oidc
        self.origins = origins
        self.started = started
        self.account_gate = account_gate
        self.ceremonies = ceremonies
        #: Whether the provider's first sign-in without ``auth_time`` was logged (once per App).
        self._told_no_auth_time = False

    async def _metadata(self) -> ProviderMetadata:
        try:
            return await self.started().provider.metadata()
        except OidcError as error:
            logger.error("identity provider discovery failed: %s", error)
            raise provider_unavailable() from None

    async def login(self, request: Request) -> Response:
        target = return_target(request, self.auth.post_login_path)
        redirect_uri = self.origins.redirect_uri_for(request)
        metadata = await self._metadata()
        pending = PendingLogin.new(redirect_uri)
        prompt = self._prompt(request, metadata)
        step = stepup.begin(request, stepup.requested_window(request))
        if step is not None:
            prompt = "login"  # a re-proof of this session's identity: no account picker
        attempt = new_attempt(pending, target, step, nonce=pending.nonce)
        url = authorization_url(
            metadata,
            client_id=self.oidc.client_id,
            pending=pending,
            scopes=self.oidc.scopes,
            prompt=prompt,
            max_age=step.max_age if step is not None else None,
        )
        return await send_to_provider(request, self.started().logins, attempt, url)

    def _prompt(self, request: Request, metadata: ProviderMetadata) -> str:
        """What the provider is asked to do before it answers.

        After a logout here (the reconfirm mark): prove again and choose the account. On a shared
        terminal (``auth.shared_device``): prove again at every sign-in, as whoever signed in last
        may have walked away without a logout, and never list other people's accounts.
        """
        if self.auth.shared_device:
            return "login"
        return reconfirm_prompt(metadata) if request.cookies.get(RECONFIRM_COOKIE) else ""

    async def callback(self, request: Request) -> Response:
        async def finish(attempt: LoginAttempt | None, any_pending: bool) -> Response:
            return await self._finish_login(request, attempt, any_pending)

        return await take_callback(request, self.started().logins, finish)

    async def _finish_login(
        self, request: Request, attempt: LoginAttempt | None, any_pending: bool
    ) -> Response:
        params = request.query_params
        if not any_pending:
            raise no_attempt(self.auth.login_path)
        started = self.started()
        provider = started.provider
        if attempt is None:
            raise foreign_state()
        metadata = await self._metadata()
        # RFC 9207: a provider that promises ``iss`` in its answers must send it; mix-up defence.
        iss_promised = metadata.raw.get("authorization_response_iss_parameter_supported") is True
        if ("iss" in params or iss_promised) and params.get("iss", "").rstrip("/") != provider.issuer:
            raise login_failed("the sign-in response comes from another issuer")
        code = check_callback(params)
        login = pending_login(attempt)
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
            raise provider_unavailable() from None
        except (ProviderError, TokenRejected) as error:
            logger.info("sign-in rejected: %s", error)
            raise login_failed(error.reason) from None
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
            raise login_failed(f"the verified identity has no {self.oidc.identity_claim} claim")
        step = StepUp.from_dict(attempt.step_up) if attempt.step_up is not None else None
        if step is None and verified.auth_time is None:
            self._tell_no_auth_time(verified.issuer, metadata)
        if step is not None:
            # A re-proof: same identity, inside the window, before admission is even asked.
            stepup.check_proof(step, issuer=verified.issuer, key=str(value), auth_time=verified.auth_time)
        await admit(started.admission, self.oidc.admission, verified.issuer, claims)
        identity = Identity(
            issuer=verified.issuer,
            claim=self.oidc.identity_claim,
            value=str(value),
            claims=claims,
            create=step is None and self.oidc.auto_provision and self.oidc.admission != "existing",
        )
        account = await resolve_account(started.accounts, identity)
        if step is not None and verified.auth_time is not None:
            return await stepup.land(
                request,
                step,
                account.account_id,
                verified.auth_time,
                started.sessions,
                self.ceremonies,
                attempt.next,
                self.auth.post_login_path,
            )
        if self.account_gate is not None and not await self.account_gate(account):
            raise login_failed(
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
            # Only with back-channel logout on: the marks' index (fw_session_marks) is its own.
            marks=provider_marks(verified.issuer, claims) if self.oidc.backchannel_logout_path else (),
        )
        return await land_signed_in(
            request, started.sessions, started.accounts, summary, attempt.next, self.auth.post_login_path
        )

    def _tell_no_auth_time(self, issuer: str, metadata: ProviderMetadata) -> None:
        """Warn once that this provider ignores the request for ``auth_time``, and what to change."""
        if self._told_no_auth_time:
            return
        self._told_no_auth_time = True
        advertised = metadata.raw.get("claims_parameter_supported") is True
        logger.warning(
            "the identity provider %s sent an ID token without auth_time, although fw asks for it as "
            "an essential claim (OpenID Connect Core 5.5.1.1; its discovery document %s "
            "claims_parameter_supported: true): its sign-ins leave the proof time unknown, so every "
            "guard needing a recent proof (and passkey registration) asks for a step-up first. Enable "
            "the claims parameter at the provider, or register the client with require_auth_time",
            issuer,
            "says" if advertised else "does not say",
        )
