"""Bearer access-token verification, in the order the framework promises.

1. shape and header (size, compact JWS only, allow-listed algorithm, no ``crit``/nesting),
2. signature with a key the issuer published (joserfc's algorithms do the cryptography),
3. ``iss``, ``aud``, ``exp``, ``iat``, ``sub``, token type, lifetime, required scopes.

Every failure raises :class:`TokenRejected`; its reason is for logs only, because callers see
one indistinguishable rejection whatever went wrong.
"""

from __future__ import annotations

import binascii
import json
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from joserfc.errors import JoseError
from joserfc.jws import JWSRegistry

from fw.auth.jwt.keys import ALGORITHMS, Key, fits

MAX_TOKEN_BYTES = 16 * 1024
MAX_KID_LENGTH = 256
_FORBIDDEN_HEADERS = ("crit", "zip", "b64", "enc")

KeyLookup = Callable[[str | None, str], Awaitable[Key | None]]


class TokenRejected(Exception):
    """The token is not acceptable; ``reason`` is for operators, never for the caller."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


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


def normalize_token_type(value: str) -> str:
    """``application/AT+JWT`` and ``at+jwt`` are the same type (RFC 9068, RFC 7515 4.1.9)."""
    value = value.strip().lower()
    return value.removeprefix("application/")


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise TokenRejected("duplicate member names")
    return result


def _reject_constant(name: str) -> Any:
    raise TokenRejected(f"non-standard JSON constant {name}")


_URLSAFE = bytes.maketrans(b"-_+/=", b"+/!!!")  # to the standard alphabet; +, / and = become invalid


def _b64decode(segment: bytes) -> bytes:
    """Strict base64url: any character outside the alphabet (padding included) is an error."""
    return binascii.a2b_base64(segment.translate(_URLSAFE) + b"=" * (-len(segment) % 4), strict_mode=True)


_JSON = json.JSONDecoder(object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)


def _decode_part(segment: bytes, what: str) -> dict[str, Any]:
    try:
        data = _JSON.decode(_b64decode(segment).decode("utf-8"))
    except (binascii.Error, ValueError, RecursionError):
        raise TokenRejected(f"{what} is not base64url JSON") from None
    if not isinstance(data, dict):
        raise TokenRejected(f"{what} is not a JSON object")
    return data


def _number(claims: dict[str, Any], name: str) -> float:
    value = claims.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TokenRejected(f"{name} is missing or not a number")
    try:
        number = float(value)
    except OverflowError:  # an integer with hundreds of digits
        raise TokenRejected(f"{name} is out of range") from None
    if not math.isfinite(number):
        raise TokenRejected(f"{name} is out of range")
    return number


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
        unknown = [alg for alg in policy.algorithms if alg not in ALGORITHMS]
        if unknown:
            raise ValueError(f"algorithms not usable for bearer tokens: {', '.join(unknown)}")
        self.policy = policy
        self._key_for = key_for
        self._clock = clock
        self._allowed = frozenset(policy.algorithms)
        # joserfc's algorithm objects do the cryptography; the compact form is parsed here,
        # once, with the stricter rules above (duplicate members, crit, nesting, size).
        registry = JWSRegistry(algorithms=list(policy.algorithms))
        self._algorithms = {alg: registry.get_alg(alg) for alg in policy.algorithms}
        self._leeway = policy.leeway.total_seconds()
        self._max_lifetime = policy.max_token_lifetime.total_seconds()
        self._token_type = normalize_token_type(policy.required_token_type)

    async def verify(self, token: str) -> VerifiedToken:
        raw = self._raw(token)
        header = self._check_header(raw)
        alg = header["alg"]
        kid = header.get("kid")
        key = await self._key_for(kid, alg)
        if key is None or not fits(key, alg):
            raise TokenRejected(f"no published key for kid={kid!r} alg={alg}")
        signing_input, _, encoded_signature = raw.rpartition(b".")
        try:
            valid = self._algorithms[alg].verify(signing_input, _b64decode(encoded_signature), key)
        except (JoseError, ValueError, TypeError) as error:
            raise TokenRejected(f"signature: {type(error).__name__}") from None
        if not valid:
            raise TokenRejected("signature does not verify")
        claims = _decode_part(signing_input.partition(b".")[2], "payload")
        return self._check_claims(header, claims)

    @staticmethod
    def _raw(token: str) -> bytes:
        if len(token) > MAX_TOKEN_BYTES:
            raise TokenRejected("token larger than the limit")
        if token.count(".") != 2:
            raise TokenRejected("not a compact JWS (encrypted or malformed)")
        try:
            return token.encode("ascii")
        except UnicodeEncodeError:
            raise TokenRejected("not base64url segments") from None

    def _check_header(self, raw: bytes) -> dict[str, Any]:
        header = _decode_part(raw.partition(b".")[0], "header")
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self._allowed:
            raise TokenRejected(f"algorithm {alg!r} is not allowed")
        for name in _FORBIDDEN_HEADERS:
            if name in header:
                raise TokenRejected(f"header {name!r} is not supported")
        cty = header.get("cty")
        if cty is not None and (not isinstance(cty, str) or normalize_token_type(cty) == "jwt"):
            raise TokenRejected("nested tokens are not accepted")
        kid = header.get("kid")
        if kid is not None and (not isinstance(kid, str) or not kid or len(kid) > MAX_KID_LENGTH):
            raise TokenRejected("kid is not a short string")
        return header

    def _check_claims(self, header: dict[str, Any], claims: dict[str, Any]) -> VerifiedToken:
        policy = self.policy
        now = self._clock()
        if claims.get("iss") != policy.issuer:
            raise TokenRejected("iss does not match")
        aud = claims.get("aud")
        audiences: Iterable[Any] = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else ()
        if not any(isinstance(a, str) and a in policy.audiences for a in audiences):
            raise TokenRejected("aud does not match")
        exp = _number(claims, "exp")
        if now >= exp + self._leeway:
            raise TokenRejected("expired")
        iat = _number(claims, "iat")
        if iat > now + self._leeway:
            raise TokenRejected("iat in the future")
        if "nbf" in claims and _number(claims, "nbf") > now + self._leeway:
            raise TokenRejected("not yet valid")
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub:
            raise TokenRejected("sub is missing")
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
