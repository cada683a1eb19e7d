"""Compact JWS, read strictly and verified with a key the issuer published.

The compact form is parsed here, once, with stricter rules than a general JOSE library
applies: a size limit, strict base64url, no duplicate JSON members, no ``crit``/``zip``/
``b64``/``enc`` header, no nested token, a short ``kid`` and an allow-listed asymmetric
algorithm. joserfc's algorithm objects do the cryptography. Access tokens and ID tokens both
come through here; each adds its own claim rules on top.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from joserfc.errors import JoseError
from joserfc.jwa import JWSAlgModel
from joserfc.jws import JWSRegistry

from fw.auth.tokens.algorithms import ALGORITHMS, Key, fits
from fw.auth.tokens.errors import AlgorithmRejected, TokenRejected

MAX_TOKEN_BYTES = 16 * 1024
MAX_KID_LENGTH = 256
_FORBIDDEN_HEADERS = ("crit", "zip", "b64", "enc")


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


@dataclass(frozen=True, slots=True)
class CompactJws:
    """A parsed token whose header passed every rule; its signature is not checked yet."""

    header: dict[str, Any]
    signing_input: bytes
    signature: bytes

    @property
    def alg(self) -> str:
        alg: str = self.header["alg"]
        return alg

    @property
    def kid(self) -> str | None:
        kid: str | None = self.header.get("kid")
        return kid


class JwsVerifier:
    """Parses and verifies compact JWS signed with one of ``algorithms`` (asymmetric only)."""

    def __init__(self, algorithms: Iterable[str], *, max_bytes: int | None = MAX_TOKEN_BYTES) -> None:
        allowed = tuple(algorithms)
        unknown = [alg for alg in allowed if alg not in ALGORITHMS]
        if unknown:
            raise ValueError(f"algorithms not usable for bearer tokens: {', '.join(unknown)}")
        self._allowed = frozenset(allowed)
        self._max_bytes = max_bytes
        self._registry = JWSRegistry(algorithms=list(allowed))
        # Resolved on first use: joserfc warns about some algorithms (EdDSA) when they are
        # looked up, and a verifier that merely allows one should not warn until a token uses it.
        self._algorithms: dict[str, JWSAlgModel] = {}

    def parse(self, token: str) -> CompactJws:
        """Shape and header; raises :class:`AlgorithmRejected` or :class:`TokenRejected`."""
        raw = self._raw(token)
        header = _decode_part(raw.partition(b".")[0], "header")
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self._allowed:
            raise AlgorithmRejected(alg)
        for name in _FORBIDDEN_HEADERS:
            if name in header:
                raise TokenRejected(f"header {name!r} is not supported")
        cty = header.get("cty")
        if cty is not None and (not isinstance(cty, str) or normalize_token_type(cty) == "jwt"):
            raise TokenRejected("nested tokens are not accepted")
        kid = header.get("kid")
        if kid is not None and (not isinstance(kid, str) or not kid or len(kid) > MAX_KID_LENGTH):
            raise TokenRejected("kid is not a short string")
        signing_input, _, signature = raw.rpartition(b".")
        return CompactJws(header, signing_input, signature)

    def claims(self, jws: CompactJws, key: Key | None) -> dict[str, Any]:
        """The payload, once the signature verifies with ``key``; otherwise :class:`TokenRejected`."""
        alg = jws.alg
        if key is None or not fits(key, alg):
            raise TokenRejected(f"no published key for kid={jws.kid!r} alg={alg}")
        algorithm = self._algorithms.get(alg)
        if algorithm is None:
            algorithm = self._algorithms[alg] = self._registry.get_alg(alg)
        try:
            valid = algorithm.verify(jws.signing_input, _b64decode(jws.signature), key)
        except (JoseError, ValueError, TypeError) as error:
            raise TokenRejected(f"signature: {type(error).__name__}") from None
        if not valid:
            raise TokenRejected("signature does not verify")
        return _decode_part(jws.signing_input.partition(b".")[2], "payload")

    def _raw(self, token: str) -> bytes:
        if self._max_bytes is not None and len(token) > self._max_bytes:
            raise TokenRejected("token larger than the limit")
        if token.count(".") != 2:
            raise TokenRejected("not a compact JWS (encrypted or malformed)")
        try:
            return token.encode("ascii")
        except UnicodeEncodeError:
            raise TokenRejected("not base64url segments") from None
