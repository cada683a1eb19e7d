"""DPoP proof JWTs (RFC 9449 section 4.3), verified strictly on the token core's JWS reader.

A proof is a JWT the client signs with a private key it keeps, carrying the public key in its
header. The checks, in the RFC's order: one well-formed compact JWS; ``typ`` ``dpop+jwt``; an
asymmetric ``alg`` on the allow-list; a ``jwk`` that is a public key only (never a private or
symmetric one) and verifies the signature; ``jti``; ``htm`` the request method; ``htu`` the
request's target URI (both normalised: :mod:`fw.auth.dpop.htu`); ``iat`` within the acceptance
window; ``ath`` the hash of the access token; the server's nonce when one is required. Replay
(the same ``jti`` twice) and the binding to the token's ``cnf.jkt`` are the caller's: this
module keeps no state.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from joserfc.errors import JoseError
from joserfc.jwk import JWKRegistry

import fw.base64url as base64url
from fw.auth.dpop.errors import DpopRejected
from fw.auth.dpop.htu import normalize_htu
from fw.auth.tokens.algorithms import Key
from fw.auth.tokens.errors import TokenRejected
from fw.auth.tokens.jws import CompactJws, JwsVerifier, normalize_token_type

PROOF_TYPE = "dpop+jwt"
#: A proof is a small JWT with one public key in it; a larger header value is not one.
MAX_PROOF_BYTES = 8 * 1024
MAX_JTI_LENGTH = 256
#: JWK members that only a private (or symmetric) key has.
_PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})


@dataclass(frozen=True, slots=True)
class ProofRules:
    """What this server accepts: algorithms, how old ``iat`` may be, clock leeway (seconds)."""

    algorithms: tuple[str, ...]
    max_age: float = 300.0
    leeway: float = 5.0


@dataclass(frozen=True, slots=True)
class VerifiedProof:
    """A proof that passed every stateless check."""

    #: The RFC 7638 thumbprint of the proof's key (what ``cnf.jkt`` must equal).
    jkt: str
    jti: str
    iat: float


def token_hash(access_token: str) -> str:
    """``ath``: base64url (no padding) of the SHA-256 of the access token's ASCII bytes."""
    digest = hashlib.sha256(access_token.encode("ascii")).digest()
    return base64url.encode(digest)


#: How many distinct proof keys keep their parsed form and thumbprint (a client reuses its key).
KEY_CACHE_SIZE = 1024


class ProofVerifier:
    """Verifies proofs under one set of :class:`ProofRules`.

    A client signs every proof with the same key, so the parsed key and its thumbprint are
    kept per distinct ``jwk`` (at most :data:`KEY_CACHE_SIZE`): importing a key and hashing its
    thumbprint cost about as much as the signature check itself.
    """

    def __init__(self, rules: ProofRules) -> None:
        self.rules = rules
        self._jws = JwsVerifier(rules.algorithms, max_bytes=MAX_PROOF_BYTES)
        self._keys: dict[str, tuple[Key, str]] = {}

    @property
    def algorithms(self) -> tuple[str, ...]:
        return self.rules.algorithms

    def verify(
        self,
        proof: str,
        *,
        method: str,
        url: str,
        now: float,
        access_token: str | None = None,
        nonces: Iterable[str] | None = None,
    ) -> VerifiedProof:
        """Check ``proof`` for a request; raises :class:`DpopRejected` naming the failed check.

        ``url`` is the request's target URI as received (its path percent-encoded as the client
        sent it, never decoded and re-encoded); ``access_token`` demands a matching ``ath``;
        ``nonces`` (when not ``None``) are the server nonces still accepted.
        """
        try:
            jws = self._jws.parse(proof)
        except TokenRejected as rejected:
            raise DpopRejected(f"proof: {rejected.reason}") from None
        typ = jws.header.get("typ")
        if not isinstance(typ, str) or normalize_token_type(typ) != PROOF_TYPE:
            raise DpopRejected("proof typ is not dpop+jwt")
        key, jkt = self._public_key(jws)
        try:
            claims = self._jws.claims(jws, key)
        except TokenRejected as rejected:
            raise DpopRejected(f"proof: {rejected.reason}") from None
        jti = claims.get("jti")
        if not isinstance(jti, str) or not jti or len(jti) > MAX_JTI_LENGTH:
            raise DpopRejected("proof jti is missing or too long")
        if claims.get("htm") != method:
            raise DpopRejected("proof htm does not match the request method")
        htu = claims.get("htu")
        named = normalize_htu(htu) if isinstance(htu, str) else None
        if named is None or named != normalize_htu(url):
            raise DpopRejected("proof htu does not match the request's target URI")
        iat = claims.get("iat")
        if isinstance(iat, bool) or not isinstance(iat, int | float):
            raise DpopRejected("proof iat is missing")
        if iat > now + self.rules.leeway or iat < now - self.rules.max_age - self.rules.leeway:
            raise DpopRejected("proof iat is outside the acceptance window")
        if access_token is not None:
            ath = claims.get("ath")
            if not isinstance(ath, str) or not hmac.compare_digest(ath, token_hash(access_token)):
                raise DpopRejected("proof ath does not match the access token")
        if nonces is not None:
            nonce = claims.get("nonce")
            if not isinstance(nonce, str) or not any(hmac.compare_digest(nonce, n) for n in nonces):
                raise DpopRejected("the proof needs the server's current nonce", "use_dpop_nonce")
        return VerifiedProof(jkt=jkt, jti=jti, iat=float(iat))

    def _public_key(self, jws: CompactJws) -> tuple[Key, str]:
        """The header's ``jwk`` (a public asymmetric key) and its thumbprint, else :class:`DpopRejected`."""
        jwk: Any = jws.header.get("jwk")
        if not isinstance(jwk, dict):
            raise DpopRejected("proof has no jwk header")
        if _PRIVATE_MEMBERS & set(jwk):
            raise DpopRejected("proof jwk is not a public key")
        if jwk.get("kty") not in ("RSA", "EC", "OKP"):
            raise DpopRejected("proof jwk is not an asymmetric key")
        cache_key = json.dumps(jwk, sort_keys=True, separators=(",", ":"))
        known = self._keys.get(cache_key)
        if known is not None:
            return known
        try:
            key = JWKRegistry.import_key(jwk)
            thumbprint = key.thumbprint()
        except (JoseError, ValueError, TypeError, KeyError):
            raise DpopRejected("proof jwk is not a usable key") from None
        if key.is_private:
            raise DpopRejected("proof jwk is not a public key")
        if len(self._keys) >= KEY_CACHE_SIZE:
            self._keys.clear()  # many distinct keys: start over rather than track recency
        self._keys[cache_key] = parsed = (key, thumbprint)  # type: ignore[assignment]
        return parsed  # type: ignore[return-value]
