"""The bearer middleware: verifies a presented token on every path, demands one on protected paths.

Every rejection looks the same (401 with ``WWW-Authenticate: Bearer``), whatever the reason;
the reason goes to the debug log. A store that cannot answer is a 503, never a silent pass. A
401 tells a client its token is bad, so the client drops it: only a verdict on the token may
answer 401. Anything else that goes wrong while deciding (a bug, a failure nobody mapped) is left
to propagate to the App's 500 boundary, which logs it and answers the 500 problem: the request
still fails closed, and the client keeps its token.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.responses import Response
from starlette.types import Scope

from fw._frozen import frozen_builder
from fw.auth.accounts import AccountSeams, Identity
from fw.auth.admission import Admission, Everyone
from fw.auth.caller import Authentication, Caller, record
from fw.auth.jwt.verifier import VerifiedToken, Verifier
from fw.auth.modes.jwt_only.dpop import DpopGate
from fw.auth.outcome import OUTCOME_KEY, note, rejection_reason
from fw.auth.protection import Protection
from fw.auth.revocation import RevocationCheck
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.tokens.errors import TokenRejected
from fw.auth.tokens.jws import MAX_TOKEN_BYTES
from fw.core.middleware import Amend, Decision
from fw.operations import events
from fw.problems import Problem

logger = logging.getLogger("fw.auth.jwt")

#: The two answers, built once: a response sends the same messages every time it is called.
_REJECT = Problem(status=401, code="unauthorized", headers={"WWW-Authenticate": "Bearer"}).response()
_REFUSE = StoreUnavailable().response()
_REJECTED = "bearer rejected: %s"
_MODE = "jwt_only"
_ALLOWED = (_MODE, "allowed", "")
_ANONYMOUS = (_MODE, "anonymous", "")


class _Awaited(enum.Enum):
    """A request :meth:`BearerMiddleware._check_now` could not settle without awaiting."""

    AWAITED = enum.auto()


_AWAITED = _Awaited.AWAITED

# The three objects every verified bearer request records, built without their generated __init__.
_identity = frozen_builder(Identity)
_caller = frozen_builder(Caller)
_authentication = frozen_builder(Authentication)


@dataclass(slots=True)
class Running:
    """Everything the middleware needs once startup succeeded."""

    verifier: Verifier
    admission: Admission
    revocation: RevocationCheck | None
    protection: Protection
    #: ``auth.jwt.dpop`` allowed or required: the DPoP checks in front of the bearer ones.
    dpop: DpopGate | None = None
    #: ``admission = authenticated``: every verified token is admitted, with nothing to await.
    admits_everyone: bool = field(init=False)
    #: Admits everyone and checks no revocation: a token whose key is at hand needs nothing awaited.
    quick: bool = field(init=False)

    def __post_init__(self) -> None:
        self.admits_everyone = isinstance(self.admission, Everyone)
        self.quick = self.admits_everyone and self.revocation is None


def _authorization(scope: Scope) -> tuple[bool, str | None]:
    """(presented, token): no header or another scheme is anonymous; a bad Bearer is presented=None."""
    found: bytes | None = None
    for name, value in scope["headers"]:
        if name == b"authorization":
            if found is not None:
                return True, None  # two Authorization headers: ambiguous, refused
            found = value
    if found is None:
        return False, None
    if found[:7] == b"Bearer ":  # the usual spelling, decided as the general reading below would
        # Checked as text: ``byte in bytes`` first tries the byte as an integer, raising inside.
        try:
            text = found[7:].decode("ascii")
        except UnicodeDecodeError:
            text = ""  # the general reading decides
        if 0 < len(text) <= MAX_TOKEN_BYTES and " " not in text and "\t" not in text and "," not in text:
            return True, text
    # The scheme is case-insensitive and SP or HTAB may separate it from the token (RFC 9110).
    scheme, _, rest = found.replace(b"\t", b" ").strip(b" ").partition(b" ")
    if scheme.lower() != b"bearer":
        return False, None  # another scheme (Basic, DPoP...) is not this mode's business
    token = rest.strip(b" ")
    if not token or len(token) > MAX_TOKEN_BYTES or b" " in token or b"," in token:
        return True, None
    try:
        return True, token.decode("ascii")
    except UnicodeDecodeError:
        return True, None


class BearerMiddleware:
    """Verifies a presented bearer token on every path and demands one on protected paths.

    ``running`` answers ``None`` until the extension's startup succeeded (every request is then
    a 503); ``identity_claim`` names the claim that identifies the caller; ``accounts`` maps the
    verified identity to an account (the App's resolver, or the claim itself).
    """

    def __init__(
        self, running: Callable[[], Running | None], identity_claim: str, accounts: AccountSeams
    ) -> None:
        self.running = running
        self._claim = identity_claim
        self._accounts = accounts

    def decide(self, scope: Scope) -> Decision:
        """The decision on an HTTP request or WebSocket handshake (:class:`fw.core.middleware.Middleware`).

        ``None`` to hand the request on, the caller (if any) recorded in the scope; the 401 or 503
        to answer. The common jwt_only requests are decided here without awaiting: an anonymous
        one, and a token the verifier remembers or can check with the key at hand, when every
        token is admitted, no revocation is checked and the account is the claim. The rest (a key
        to fetch, an admission or revocation to ask, DPoP) is :meth:`_decide_awaiting`'s.
        """
        kind = scope["type"]
        if kind != "http" and kind != "websocket":
            return None
        running = self.running()
        if running is None:
            note(scope, _MODE, "unavailable")
            return _REFUSE
        if not running.quick or running.dpop is not None or kind != "http":
            return self._decide_awaiting(scope, running)
        presented, token = _authorization(scope)
        if not presented:
            if running.protection.requires_auth(scope["path"]):
                note(scope, _MODE, "rejected", "missing")
                return _REJECT
            scope[OUTCOME_KEY] = _ANONYMOUS
            return None
        if token is None or not self._accounts.claim_is_the_account():
            return self._decide_awaiting(scope, running)
        entry = running.verifier.remembered(token)
        if entry is not None:
            # A client repeating its token, the request an API serves most: the entry holds
            # every verified fact, only the caller objects are built, here.
            issuer, value = running.verifier.policy.issuer, entry.identity
            identity = _identity(issuer, self._claim, value, entry.claims(), True)
            record(scope, _authentication("bearer", value, issuer, value, _caller(value, identity)))
            scope[OUTCOME_KEY] = _ALLOWED
            return None
        outcome = self._check_now(scope, running, token)
        if outcome is _AWAITED:
            return self._decide_awaiting(scope, running)
        if outcome is None:
            return _REJECT
        record(scope, outcome)
        scope[OUTCOME_KEY] = _ALLOWED
        return None

    async def _decide_awaiting(self, scope: Scope, running: Running) -> Response | Amend | None:
        """Any request, awaiting what it needs to (a key fetch, admission, revocation, DPoP)."""
        if running.dpop is not None:
            return await running.dpop.decide(scope, lambda t: self._authenticate(scope, running, t))
        presented, token = _authorization(scope)
        if presented:
            outcome = await self._authenticate(scope, running, token)
            if outcome is None:
                return _REJECT
            if isinstance(outcome, StoreUnavailable):
                note(scope, _MODE, "unavailable")
                return _REFUSE
            record(scope, outcome)
            scope[OUTCOME_KEY] = _ALLOWED
        elif running.protection.requires_auth(scope["path"]):
            note(scope, _MODE, "rejected", "missing")
            return _REJECT
        else:
            scope[OUTCOME_KEY] = _ANONYMOUS
        return None

    def _check_now(self, scope: Scope, running: Running, token: str) -> Authentication | _Awaited | None:
        """The caller, ``None`` to reject, or :data:`_AWAITED` when the key must be awaited.

        For a token the verifier does not remember, on a request that needs nothing else
        awaited: :attr:`Running.quick` and the account being the identity claim. Only a
        rejection of the token is ``None``; anything unexpected propagates (a 500, not a 401).
        """
        try:
            with events.bearer_verification():
                verified = running.verifier.check_now(token)
        except TokenRejected as rejection:
            logger.debug(_REJECTED, rejection.reason)
            note(scope, _MODE, "rejected", rejection_reason(rejection))
            return None
        if verified is None:
            return _AWAITED
        return self._authenticated(
            verified.identity, verified.issuer, verified.identity, self._identity(verified)
        )

    def _identity(self, verified: VerifiedToken) -> Identity:
        return _identity(verified.issuer, self._claim, verified.identity, verified.claims, True)

    @staticmethod
    def _authenticated(account_id: str, issuer: str, subject: str, identity: Identity) -> Authentication:
        """The bearer caller ``account_id``, whose token ``issuer`` issued for ``subject``."""
        return _authentication("bearer", account_id, issuer, subject, _caller(account_id, identity))

    async def _authenticate(
        self, scope: Scope, running: Running, token: str | None
    ) -> Authentication | StoreUnavailable | None:
        """The caller, ``None`` to reject with 401, or the store failure to answer 503.

        Only a verdict on the token (not verified, not admitted, revoked, no active account) is
        ``None``; an unexpected exception propagates to the App's 500 boundary.
        """
        if token is None:
            logger.debug("bearer rejected: malformed Authorization header")
            note(scope, _MODE, "rejected", "malformed")
            return None
        try:
            verifier = running.verifier
            with events.bearer_verification():
                verified = await verifier.verify(token)
            if not running.admits_everyone and not await running.admission.admits(
                verified.issuer, verified.claims
            ):
                logger.debug("bearer rejected: not admitted")
                note(scope, _MODE, "rejected", "not_admitted")
                return None
            if running.revocation is not None and await running.revocation.revoked(verified):
                logger.debug("bearer rejected: revoked")
                note(scope, _MODE, "rejected", "revoked")
                return None
        except TokenRejected as rejection:
            logger.debug(_REJECTED, rejection.reason)
            note(scope, _MODE, "rejected", rejection_reason(rejection))
            return None
        except StoreUnavailable as failure:
            logger.error("auth store unavailable: %s", failure)
            return failure
        identity = self._identity(verified)
        if self._accounts.claim_is_the_account():
            # What ClaimIsTheAccount resolves to: the account is the identity claim.
            return self._authenticated(verified.identity, verified.issuer, verified.identity, identity)
        try:
            account = await self._accounts.resolve(identity)
        except StoreUnavailable as failure:
            logger.error("account resolver unavailable: %s", failure)
            return failure
        if account is None or not account.active:
            logger.debug("bearer rejected: the account resolver refused the identity")
            note(scope, _MODE, "rejected", "no_account")
            return None
        return self._authenticated(account.account_id, verified.issuer, verified.identity, identity)
