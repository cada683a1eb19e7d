"""The back-channel half of the code flow: exchange, ID token verification, userinfo.

ID token checks follow OpenID Connect Core 3.1.3.7: signature from the provider's JWKS, ``iss``
exact, ``aud`` contains the client, ``azp`` when several audiences, ``exp``/``iat`` with a small
leeway, and the ``nonce`` bound to this attempt. Provider tokens are returned to the caller and
never stored by fw.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jws import extract_compact

from fw.auth.oidc.authorization import PendingLogin
from fw.auth.oidc.errors import OidcError, TokenRejected
from fw.auth.oidc.provider import Provider

LEEWAY = 60
#: Asymmetric algorithms only: "none" and shared-secret HMAC are never accepted for ID tokens.
SIGNATURE_ALGORITHMS = frozenset(
    ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
)
MAX_IAT_AGE = 24 * 3600


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
    auth: httpx.BasicAuth | None = None
    methods = metadata.raw.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    if client_secret and "client_secret_basic" in methods:
        # RFC 6749 2.3.1: both parts are form-urlencoded before the Basic encoding.
        auth = httpx.BasicAuth(quote(client_id, safe=""), quote(client_secret, safe=""))
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
        header = extract_compact(id_token.encode("ascii")).protected
    except (JoseError, ValueError, UnicodeEncodeError):
        raise TokenRejected("the ID token is malformed") from None
    algorithm = str(header.get("alg", ""))
    if algorithm not in SIGNATURE_ALGORITHMS:
        raise TokenRejected("the ID token algorithm is not acceptable", algorithm)
    kid = header.get("kid")
    keys = await provider.keys(kid=kid if isinstance(kid, str) else None)
    try:
        token = jwt.decode(id_token, keys, algorithms=[algorithm])
    except (JoseError, ValueError) as error:
        raise TokenRejected("the ID token signature does not verify", str(error)) from None
    claims = dict(token.claims)
    _check_claims(claims, issuer=provider.issuer, client_id=client_id, nonce=nonce, now=now or time.time())
    return VerifiedIdentity(issuer=provider.issuer, subject=str(claims["sub"]), claims=claims)


def _number(claims: dict[str, Any], name: str) -> float:
    value = claims.get(name)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TokenRejected(f"the ID token has no numeric {name}")
    return float(value)


def _check_claims(
    claims: dict[str, Any], *, issuer: str, client_id: str, nonce: str | None, now: float
) -> None:
    if str(claims.get("iss", "")).rstrip("/") != issuer:
        raise TokenRejected("the ID token comes from another issuer")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise TokenRejected("the ID token has no subject")
    audience = claims.get("aud")
    audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
    if client_id not in audiences:
        raise TokenRejected("the ID token is meant for another audience")
    azp = claims.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != client_id:
        raise TokenRejected("the ID token's authorized party is another client")
    if _number(claims, "exp") + LEEWAY < now:
        raise TokenRejected("the ID token has expired")
    issued = _number(claims, "iat")
    if issued - LEEWAY > now or issued + MAX_IAT_AGE < now:
        raise TokenRejected("the ID token's issued-at time is not acceptable")
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
