"""Bearer access-token verification, in the order the framework promises.

1. shape and header (size, compact JWS only, allow-listed algorithm, no ``crit``/nesting),
2. signature with a key the issuer published (joserfc's algorithms do the cryptography),
3. ``iss``, ``aud``, ``exp``, ``iat``, ``sub``, token type, lifetime, required scopes.

Steps 1, 2 and the registered claims of step 3 are the token core's (:mod:`fw.auth.tokens`);
this module is the access-token policy on top. Every failure raises :class:`TokenRejected`;
its reason is for logs only, because callers see one indistinguishable rejection whatever went
wrong.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from fw.auth.tokens.algorithms import Key
from fw.auth.tokens.claims import ClaimRules, check_claims
from fw.auth.tokens.errors import TokenRejected
from fw.auth.tokens.jws import MAX_TOKEN_BYTES, JwsVerifier, normalize_token_type

KeyLookup = Callable[[str | None, str], Awaitable[Key | None]]


@dataclass(frozen=True, slots=True)
class Policy:
    """What an acceptable access token looks like for one API."""

    issuer: str
    audiences: frozenset[str]
    algorithms: tuple[str, ...]
    max_token_lifetime: timedelta
    identity_claim: str = "sub"
    required_token_type: str = "at+jwt"
    required_scopes: frozenset[str] = field(default_factory=frozenset)
    leeway: timedelta = timedelta(seconds=30)


@dataclass(frozen=True, slots=True)
class VerifiedToken:
    """A token that passed every check: its claims and the facts revocation needs."""

    claims: dict[str, Any]
    header: dict[str, Any]
    issuer: str
    identity: str
    token_id: str | None
    issued_at: float


def scopes_of(claims: dict[str, Any]) -> set[str]:
    """Granted scopes from ``scope`` (space-separated) or ``scp`` (string or array)."""
    granted: set[str] = set()
    scope = claims.get("scope")
    if isinstance(scope, str):
        granted.update(scope.split())
    scp = claims.get("scp")
    if isinstance(scp, str):
        granted.update(scp.split())
    elif isinstance(scp, list):
        granted.update(item for item in scp if isinstance(item, str))
    return granted


class Verifier:
    """Verifies compact JWS access tokens for one :class:`Policy` with keys from ``key_for``."""

    def __init__(self, policy: Policy, key_for: KeyLookup, *, clock: Callable[[], float] = time.time) -> None:
        self.policy = policy
        self._jws = JwsVerifier(policy.algorithms, max_bytes=MAX_TOKEN_BYTES)
        self._key_for = key_for
        self._clock = clock
        self._rules = ClaimRules(
            issuer=policy.issuer,
            audiences=policy.audiences,
            leeway=policy.leeway.total_seconds(),
        )
        self._max_lifetime = policy.max_token_lifetime.total_seconds()
        self._token_type = normalize_token_type(policy.required_token_type)

    async def verify(self, token: str) -> VerifiedToken:
        jws = self._jws.parse(token)
        claims = self._jws.claims(jws, await self._key_for(jws.kid, jws.alg))
        return self._check_claims(jws.header, claims)

    def _check_claims(self, header: dict[str, Any], claims: dict[str, Any]) -> VerifiedToken:
        policy = self.policy
        exp, iat = check_claims(claims, self._rules, self._clock())
        typ = header.get("typ")
        if not isinstance(typ, str) or normalize_token_type(typ) != self._token_type:
            raise TokenRejected(f"token type {typ!r} is not {self._token_type!r}")
        if exp - iat > self._max_lifetime:
            raise TokenRejected("lifetime longer than max_token_lifetime")
        if policy.required_scopes and not policy.required_scopes <= scopes_of(claims):
            raise TokenRejected("required scope missing")
        identity = claims.get(policy.identity_claim)
        if isinstance(identity, bool) or not isinstance(identity, str | int) or identity == "":
            raise TokenRejected(f"identity claim {policy.identity_claim!r} is missing")
        jti = claims.get("jti")
        return VerifiedToken(
            claims=claims,
            header=header,
            issuer=policy.issuer,
            identity=str(identity),
            token_id=jti if isinstance(jti, str) and jti else None,
            issued_at=iat,
        )
