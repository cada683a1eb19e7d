"""The back-channel half of the code flow: exchange, ID token verification, userinfo.

ID token checks follow OpenID Connect Core 3.1.3.7: signature from the provider's JWKS, ``iss``
exact, ``aud`` contains the client, ``azp`` when several audiences, ``exp``/``iat`` with a small
leeway, and the ``nonce`` bound to this attempt. Parsing, signature and the registered claims
are the token core's (:mod:`fw.auth.tokens`); the ID-token rules and the words a person sees
when one fails are here. Provider tokens are returned to the caller and never stored by fw.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx2

from fw.auth.oidc.authorization import PendingLogin
from fw.auth.oidc.errors import OidcError, TokenRejected
from fw.auth.oidc.provider import Provider
from fw.auth.tokens.algorithms import ALGORITHMS
from fw.auth.tokens.claims import ClaimRules, audiences_of, check_claims
from fw.auth.tokens.errors import AlgorithmRejected, ClaimRejected
from fw.auth.tokens.jws import JwsVerifier

LEEWAY = 60
#: Asymmetric algorithms only: "none" and shared-secret HMAC are never accepted for ID tokens.
#: Ed25519 signatures are named ``EdDSA`` here; the fully-specified ``Ed25519`` name is for access tokens.
SIGNATURE_ALGORITHMS = frozenset(alg for alg in ALGORITHMS if alg != "Ed25519")
MAX_IAT_AGE = 24 * 3600
#: No size limit of its own: an ID token arrives inside the token endpoint's answer, which is bounded.
_ID_TOKENS = JwsVerifier(sorted(SIGNATURE_ALGORITHMS), max_bytes=None)
#: What a person is told when a registered claim fails, by (claim, unusable rather than wrong).
_CLAIM_REASONS = {
    ("iss", False): "the ID token comes from another issuer",
    ("aud", False): "the ID token is meant for another audience",
    ("exp", True): "the ID token has no numeric exp",
    ("exp", False): "the ID token has expired",
    ("iat", True): "the ID token has no numeric iat",
    ("iat", False): "the ID token's issued-at time is not acceptable",
    ("sub", True): "the ID token has no subject",
}


@dataclass(frozen=True)
class Tokens:
    """What the token endpoint returned. ``repr`` hides the token values."""

    access_token: str = field(repr=False)
    token_type: str
    id_token: str = field(default="", repr=False)
    refresh_token: str = field(default="", repr=False)
    expires_in: int | None = None
    scope: str = ""


@dataclass(frozen=True)
class VerifiedIdentity:
    """Claims of a verified ID token (merged with userinfo when fetched)."""

    issuer: str
    subject: str
    claims: dict[str, Any]

    @property
    def auth_time(self) -> int | None:
        value = self.claims.get("auth_time")
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def parse_tokens(body: dict[str, Any]) -> Tokens:
    access = body.get("access_token")
    if not isinstance(access, str) or not access:
        raise OidcError("the token response has no access_token")
    expires = body.get("expires_in")
    return Tokens(
        access_token=access,
        token_type=str(body.get("token_type", "")),
        id_token=str(body.get("id_token") or ""),
        refresh_token=str(body.get("refresh_token") or ""),
        expires_in=int(expires)
        if isinstance(expires, int | float) and not isinstance(expires, bool)
        else None,
        scope=str(body.get("scope") or ""),
    )


async def exchange_code(
    provider: Provider, *, client_id: str, client_secret: str, code: str, pending: PendingLogin
) -> Tokens:
    """Redeem ``code`` with client_secret_post and the PKCE verifier."""
    metadata = await provider.metadata()
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": pending.redirect_uri,
        "code_verifier": pending.code_verifier,
    }
    auth: httpx2.BasicAuth | None = None
    methods = metadata.raw.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    if client_secret and "client_secret_basic" in methods:
        # RFC 6749 2.3.1: both parts are form-urlencoded before the Basic encoding.
        auth = httpx2.BasicAuth(quote(client_id, safe=""), quote(client_secret, safe=""))
    else:
        form["client_id"] = client_id
        if client_secret:
            form["client_secret"] = client_secret
    tokens = parse_tokens(await provider.post_form(metadata.token_endpoint, form, auth=auth))
    if not tokens.id_token:
        raise OidcError("the token response has no id_token")
    return tokens


async def verify_id_token(
    provider: Provider,
    id_token: str,
    *,
    client_id: str,
    nonce: str | None,
    now: float | None = None,
) -> VerifiedIdentity:
    """Verify an ID token; raises :class:`TokenRejected` naming the failed check."""
    try:
        jws = _ID_TOKENS.parse(id_token)
    except AlgorithmRejected as rejected:
        named = "" if rejected.algorithm is None else str(rejected.algorithm)
        raise TokenRejected("the ID token algorithm is not acceptable", named) from None
    except TokenRejected:
        raise TokenRejected("the ID token is malformed") from None
    key = await provider.key_for(jws.kid, jws.alg)
    try:
        claims = _ID_TOKENS.claims(jws, key)
    except TokenRejected as rejected:
        raise TokenRejected("the ID token signature does not verify", rejected.reason) from None
    _check_claims(claims, issuer=provider.issuer, client_id=client_id, nonce=nonce, now=now or time.time())
    return VerifiedIdentity(issuer=provider.issuer, subject=str(claims["sub"]), claims=claims)


def _check_claims(
    claims: dict[str, Any], *, issuer: str, client_id: str, nonce: str | None, now: float
) -> None:
    rules = ClaimRules(
        issuer=issuer,
        audiences=frozenset((client_id,)),
        leeway=LEEWAY,
        max_age=MAX_IAT_AGE,
        not_before=False,
        ignore_trailing_slash=True,
    )
    try:
        check_claims(claims, rules, now)
    except ClaimRejected as rejected:
        raise TokenRejected(_CLAIM_REASONS[(rejected.claim, rejected.malformed)]) from None
    # OIDC Core 3.1.3.7: with several audiences (or any azp) the authorized party is this client.
    azp = claims.get("azp")
    if (len(audiences_of(claims)) > 1 or azp is not None) and azp != client_id:
        raise TokenRejected("the ID token's authorized party is another client")
    if nonce is not None:
        presented = claims.get("nonce")
        if not isinstance(presented, str) or not hmac.compare_digest(presented, nonce):
            raise TokenRejected("the ID token nonce does not match this sign-in")


async def fetch_userinfo(provider: Provider, tokens: Tokens, subject: str) -> dict[str, Any]:
    """Userinfo claims; the ``sub`` must equal the ID token's (OIDC Core 5.3.4)."""
    metadata = await provider.metadata()
    if not metadata.userinfo_endpoint:
        return {}
    info = await provider.get_json(
        metadata.userinfo_endpoint, headers={"Authorization": f"Bearer {tokens.access_token}"}
    )
    if info.get("sub") != subject:
        raise TokenRejected("userinfo describes another subject")
    return info
