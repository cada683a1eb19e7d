"""Bearer access-token verification, in the order the framework promises.

1. shape and header (size, compact JWS only, allow-listed algorithm, no ``crit``/nesting),
2. signature with a key the issuer published (joserfc's algorithms do the cryptography),
3. ``iss``, ``aud``, ``exp``, ``iat``, ``sub``, token type, lifetime, required scopes.

Steps 1, 2 and the registered claims of step 3 are the token core's (:mod:`fw.auth.tokens`);
this module is the access-token policy on top, with the optional verified-token cache
(:mod:`fw.auth.jwt.cache`) in front of it. Every failure raises :class:`TokenRejected`;
its reason is for logs only, because callers see one indistinguishable rejection whatever went
wrong.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from fw._frozen import frozen_builder
from fw.auth.jwt.cache import CachedToken, TokenCache, signed_prefix, token_digest
from fw.auth.tokens.algorithms import Key
from fw.auth.tokens.claims import ClaimRules, check_claims
from fw.auth.tokens.errors import TokenRejected
from fw.auth.tokens.jws import (
    MAX_TOKEN_BYTES,
    JwsVerifier,
    claims_source,
    decode_claims,
    normalize_token_type,
)

KeyLookup = Callable[[str | None, str], Awaitable[Key | None]]
#: Identifies the key set in use; the token cache is dropped whenever its answer changes.
KeyVersion = Callable[[], object]
#: The key for (kid, alg) when it can be had without awaiting, else ``None``.
FreshKey = Callable[[str | None, str], Key | None]


def _no_version() -> object:
    return None


def _nothing_remembered(token: str) -> CachedToken | None:
    """What a verifier without a cache remembers of any token."""
    return None


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


#: ``VerifiedToken(...)`` built on every bearer request without the generated ``__init__``.
_verified = frozen_builder(VerifiedToken)


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


def _grants(claims: dict[str, Any], required: frozenset[str]) -> bool:
    """True when the token grants every scope in ``required`` (see :func:`scopes_of`)."""
    scope = claims.get("scope")
    if type(scope) is str and "scp" not in claims:  # the usual shape: one space-separated string
        return required.issubset(scope.split())
    return required <= scopes_of(claims)


class Verifier:
    """Verifies compact JWS access tokens for one :class:`Policy` with keys from ``key_for``.

    ``fresh_key``, when given, answers a key lookup without awaiting when it can (``None``
    sends the lookup to ``key_for``). With ``cache_size`` above zero, tokens that passed are
    remembered (see :mod:`fw.auth.jwt.cache`) for as long as ``key_version`` gives the same
    answer.
    """

    def __init__(
        self,
        policy: Policy,
        key_for: KeyLookup,
        *,
        clock: Callable[[], float] = time.time,
        cache_size: int = 0,
        key_version: KeyVersion = _no_version,
        fresh_key: FreshKey | None = None,
    ) -> None:
        self.policy = policy
        self.cache = TokenCache(cache_size, clock=clock, key_version=key_version) if cache_size > 0 else None
        #: ``remembered(token)``: the cache's entry for ``token`` (a token that passed every
        #: check), if it has one. The cache's own lookup, so a request repeating its token
        #: costs one call here.
        self.remembered: Callable[[str], CachedToken | None] = (
            self.cache.get if self.cache is not None else _nothing_remembered
        )
        self._key_version = key_version
        self._fresh_key = fresh_key
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
        """Every check, or the cached outcome of every check; raises :class:`TokenRejected`."""
        entry = self.remembered(token)
        return self._recalled(entry) if entry is not None else await self.check(token)

    def verify_now(self, token: str) -> VerifiedToken | None:
        """:meth:`verify` without awaiting, or ``None`` when the key must be awaited.

        The cached outcome, or every check when the key is at hand (``fresh_key``); raises
        :class:`TokenRejected`. ``None`` leaves the token to :meth:`check`, which looks the key
        up and finishes. A request whose token and key are both known is then served without
        a coroutine.
        """
        entry = self.remembered(token)
        return self._recalled(entry) if entry is not None else self.check_now(token)

    def check_now(self, token: str) -> VerifiedToken | None:
        """Every check with the key at hand, without looking in the cache first; ``None`` when
        the key must be awaited (:meth:`check` then finishes); raises :class:`TokenRejected`.

        For a caller that just asked :meth:`remembered` for this token: the bearer middleware
        serves a remembered token from its entry as it is (the identity and a fresh claims dict
        are all a request needs) and checks any other token here, without a coroutine.
        """
        if self._fresh_key is None:
            return None
        version = self._key_version() if self.cache is not None else None
        header, signing_input, signature = self._jws.split(token)
        key = self._fresh_key(header.get("kid"), header["alg"])
        if key is None:
            return None
        return self._finish(token, version, header, signing_input, signature, key)

    def _recalled(self, entry: CachedToken) -> VerifiedToken:
        """The verified token a cache entry stands for, with its own claims and header."""
        return _verified(
            entry.claims(),
            dict(entry.header),
            self.policy.issuer,
            entry.identity,
            entry.token_id,
            entry.issued_at,
        )

    async def check(self, token: str) -> VerifiedToken:
        """Every check, without looking in the cache first (a token that passes may enter it)."""
        version = self._key_version() if self.cache is not None else None
        header, signing_input, signature = self._jws.split(token)
        kid, alg = header.get("kid"), header["alg"]
        key = self._fresh_key(kid, alg) if self._fresh_key is not None else None
        if key is not None:
            return self._finish(token, version, header, signing_input, signature, key)
        key = await self._key_for(kid, alg)
        # Other requests ran while the key was looked up; a token verified with keys that
        # changed meanwhile may no longer be vouched for, so it is not kept.
        keep = self._key_version() == version
        return self._finish(token, version, header, signing_input, signature, key, keep=keep)

    def _finish(
        self,
        token: str,
        version: object,
        header: dict[str, Any],
        signing_input: bytes,
        signature: bytes,
        key: Key | None,
        *,
        keep: bool = True,
    ) -> VerifiedToken:
        """The signature and claim checks; a token passing them may enter the cache (``keep``).

        ``version`` is the key set's version when the check began; only a token seen verified
        before is kept (:meth:`TokenCache.admits`).
        """
        payload = self._jws.signed_payload(header, signing_input, signature, key)
        verified, exp = self._check_claims(header, decode_claims(payload))
        cache = self.cache
        if cache is not None and cache.admits(token) and keep:
            entry = CachedToken(
                token_digest(token),
                claims_source(payload),
                dict(header),
                verified.identity,
                verified.token_id,
                verified.issued_at,
                exp,
                signed_prefix(token),
            )
            cache.put(token, entry, version)
        return verified

    def _check_claims(self, header: dict[str, Any], claims: dict[str, Any]) -> tuple[VerifiedToken, float]:
        policy = self.policy
        exp, iat = check_claims(claims, self._rules, self._clock())
        typ = header.get("typ")
        if typ != self._token_type and (
            not isinstance(typ, str) or normalize_token_type(typ) != self._token_type
        ):
            raise TokenRejected(f"token type {typ!r} is not {self._token_type!r}")
        if exp - iat > self._max_lifetime:
            raise TokenRejected("lifetime longer than max_token_lifetime")
        required = policy.required_scopes
        if required and not _grants(claims, required):
            raise TokenRejected("required scope missing")
        identity = claims.get(policy.identity_claim)
        if type(identity) is not str and (isinstance(identity, bool) or not isinstance(identity, str | int)):
            raise TokenRejected(f"identity claim {policy.identity_claim!r} is missing")
        if identity == "":
            raise TokenRejected(f"identity claim {policy.identity_claim!r} is missing")
        jti = claims.get("jti")
        token_id = jti if jti and isinstance(jti, str) else None
        return _verified(claims, header, policy.issuer, str(identity), token_id, iat), exp
