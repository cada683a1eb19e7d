"""What authentication decided on a request, recorded in its scope for the access log and metrics.

``scope["fw.auth"] = (mode, outcome, reason)``: ``mode`` is ``auth.mode``; ``outcome`` is
``allowed`` (a caller was identified), ``anonymous`` (nothing presented, nothing required),
``rejected`` (a 401 or a redirect to sign in) or ``unavailable`` (a store could not answer: 503);
``reason`` says why a request was rejected, from a short fixed list (:data:`REASONS`), so that it
can label a metric. The client never sees it: every rejection looks the same.
"""

from __future__ import annotations

from starlette.types import Scope

from fw.auth.tokens.errors import AlgorithmRejected, ClaimRejected, TokenRejected

OUTCOME_KEY = "fw.auth"

#: Every reason a rejection is recorded with.
REASONS = (
    "missing",
    "malformed",
    "expired",
    "not_yet_valid",
    "wrong_issuer",
    "wrong_audience",
    "bad_algorithm",
    "bad_signature",
    "unknown_key",
    "invalid_claims",
    "not_admitted",
    "revoked",
    "no_account",
    "dpop",
    "no_session",
    "session_ended",
)

_CLAIMS = {"exp": "expired", "nbf": "not_yet_valid", "iss": "wrong_issuer", "aud": "wrong_audience"}


def note(scope: Scope, mode: str, outcome: str, reason: str = "") -> None:
    """Record the decision on this request (see :mod:`fw.auth.outcome`)."""
    scope[OUTCOME_KEY] = (mode, outcome, reason)


def rejection_reason(rejection: TokenRejected) -> str:
    """The fixed reason a token rejection is counted under."""
    if isinstance(rejection, ClaimRejected):
        return "malformed" if rejection.malformed else _CLAIMS.get(rejection.claim, "invalid_claims")
    if isinstance(rejection, AlgorithmRejected):
        return "bad_algorithm"
    text = rejection.reason
    if text.startswith("signature"):
        return "bad_signature"
    if text.startswith("no published key"):
        return "unknown_key"
    if "missing" in text or "lifetime" in text or "token type" in text:
        return "invalid_claims"
    return "malformed"
