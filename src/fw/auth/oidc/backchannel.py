"""Logout tokens (OpenID Connect Back-Channel Logout 1.0, section 2.6), verified on the token core.

A provider POSTs a logout token to the relying party when a person's provider session ends.
The token is a JWT signed with the provider's ID-token keys; what makes it a logout token and
not an ID token is checked here: ``typ`` ``logout+jwt`` when present, the back-channel
``events`` member, a ``sid`` and/or ``sub``, a ``jti``, and no ``nonce`` (so an ID token can
never be replayed as a logout). Whether the ``jti`` was seen before is the caller's to decide:
protocol code keeps no state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from fw.auth.oidc.exchange import LEEWAY, SIGNATURE_ALGORITHMS
from fw.auth.oidc.provider import Provider
from fw.auth.tokens.claims import audiences_of, numeric_date
from fw.auth.tokens.errors import ClaimRejected, TokenRejected
from fw.auth.tokens.jws import JwsVerifier, normalize_token_type

#: The member of ``events`` that makes a JWT a back-channel logout token.
BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout"
#: The ``typ`` a provider may set (section 2.4); any other ``typ`` is another kind of token.
LOGOUT_TOKEN_TYPE = "logout+jwt"
#: How old an ``iat`` may be when the token carries no ``exp`` (and how long its jti is kept).
MAX_AGE = 10 * 60
#: A logout token arrives as one form field; anything larger is not one.
MAX_LOGOUT_TOKEN_BYTES = 16 * 1024
_LOGOUT_TOKENS = JwsVerifier(sorted(SIGNATURE_ALGORITHMS), max_bytes=MAX_LOGOUT_TOKEN_BYTES)


@dataclass(frozen=True, slots=True)
class LogoutToken:
    """A verified logout token: whose sessions end, and until when its ``jti`` must stay spent."""

    issuer: str
    jti: str
    #: The provider session (``sid``) or ``""``; at least one of ``sid`` and ``subject`` is set.
    sid: str
    subject: str
    #: UNIX time after which the token is no longer acceptable (so its jti need not be kept).
    expires_at: float


async def verify_logout_token(
    provider: Provider, token: str, *, client_id: str, now: float | None = None
) -> LogoutToken:
    """Verify ``token`` as a logout token for ``client_id``; raises :class:`TokenRejected` naming why.

    A provider that cannot be reached raises its :class:`~fw.auth.oidc.errors.OidcError`.
    """
    jws = _LOGOUT_TOKENS.parse(token)  # shape and algorithm: TokenRejected / AlgorithmRejected
    typ = jws.header.get("typ")
    if typ is not None and (not isinstance(typ, str) or normalize_token_type(typ) != LOGOUT_TOKEN_TYPE):
        raise TokenRejected("typ is not logout+jwt", str(typ))
    key = await provider.key_for(jws.kid, jws.alg)
    claims = _LOGOUT_TOKENS.claims(jws, key)
    return check_logout_claims(claims, issuer=provider.issuer, client_id=client_id, now=now or time.time())


def check_logout_claims(claims: dict[str, Any], *, issuer: str, client_id: str, now: float) -> LogoutToken:
    """The claim rules of section 2.6, steps 3 to 7 (the signature is already verified)."""
    if str(claims.get("iss", "")).rstrip("/") != issuer.rstrip("/"):
        raise TokenRejected("iss does not match")
    if client_id not in [a for a in audiences_of(claims) if isinstance(a, str)]:
        raise TokenRejected("aud does not name this client")
    try:
        iat = numeric_date(claims, "iat")
        exp = numeric_date(claims, "exp") if "exp" in claims else iat + MAX_AGE
    except ClaimRejected as rejected:
        raise TokenRejected(rejected.reason) from None
    if iat > now + LEEWAY:
        raise TokenRejected("iat is in the future")
    if iat + MAX_AGE + LEEWAY < now:
        raise TokenRejected("iat is too long ago")
    if exp + LEEWAY <= now:
        raise TokenRejected("expired")
    events = claims.get("events")
    if not isinstance(events, dict) or not isinstance(events.get(BACKCHANNEL_EVENT), dict):
        raise TokenRejected("events has no back-channel logout member")
    if "nonce" in claims:
        raise TokenRejected("a logout token must not carry a nonce")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti:
        raise TokenRejected("jti is missing")
    sid, sub = claims.get("sid"), claims.get("sub")
    for name, value in (("sid", sid), ("sub", sub)):
        if value is not None and (not isinstance(value, str) or not value):
            raise TokenRejected(f"{name} is not a non-empty string")
    if sid is None and sub is None:
        raise TokenRejected("neither sid nor sub names whose sessions end")
    return LogoutToken(
        issuer=issuer.rstrip("/"),
        jti=jti,
        sid=sid or "",
        subject=sub or "",
        expires_at=min(exp, iat + MAX_AGE) + LEEWAY,
    )
