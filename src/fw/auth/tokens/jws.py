"""Compact JWS, read strictly and verified with a key the issuer published.

The compact form is parsed here, once, with stricter rules than a general JOSE library
applies: a size limit, strict base64url, no duplicate JSON members, no ``crit``/``zip``/
``b64``/``enc`` header, no nested token, a short ``kid`` and an allow-listed asymmetric
algorithm. ``cryptography`` checks the signature with the key object joserfc imported, through
a check prepared once per key and algorithm (:mod:`fw.auth.tokens.signatures`). Access tokens
and ID tokens both come through here; each adds its own claim rules on top.

Speed without loosening a rule: JSON is decoded by msgspec (in C) and accepted only when
re-encoding the result gives back the exact input bytes, which proves there was no duplicate
member, no non-standard constant and nothing the strict decoder would read differently; any
other input takes the strict stdlib decoder, so what is accepted or refused never changes.
A header that passed every rule is remembered by its segment (issuers reuse one header for
every token), in a small table that is emptied when full.
"""

from __future__ import annotations

import binascii
import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from fw.auth.tokens.algorithms import ALGORITHMS, Key, fits
from fw.auth.tokens.errors import AlgorithmRejected, TokenRejected
from fw.auth.tokens.signatures import SignatureCheck, prepare

MAX_TOKEN_BYTES = 16 * 1024
MAX_KID_LENGTH = 256
_FORBIDDEN_HEADERS = ("crit", "zip", "b64", "enc")
#: Distinct accepted header segments, and (key, algorithm) checks, remembered per verifier.
#: An issuer uses one or two of each; the tables are emptied when full.
MAX_REMEMBERED = 64


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


def _urlsafe_table() -> bytes:
    """base64url to the standard alphabet; every other byte becomes ``!``, which no reader accepts."""
    table = bytearray(b"!" * 256)
    for char in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789":
        table[char] = char
    table[ord("-")], table[ord("_")] = ord("+"), ord("/")
    return bytes(table)


_URLSAFE = _urlsafe_table()
#: What closes a translated segment, by its length modulo 4: its padding (a length of 1 is never
#: base64, so it gets a character no reader accepts) and the closing quote.
_CLOSING = (b'"', b'!"', b'=="', b'="')
#: msgspec reads a JSON string into ``bytes`` as standard base64 with its padding, strictly and
#: about twice as fast as ``binascii``; the token path reads two segments per verification.
_BASE64 = msgspec.json.Decoder(bytes)


# Kept apart from fw.base64url.decode: bytes in, binascii.Error out, msgspec's reader for speed.
def _b64decode(segment: bytes) -> bytes:
    """Strict base64url: any character outside the alphabet (padding included) is an error.

    The segment is translated to the standard alphabet, padded and quoted, and read by
    msgspec's base64 reader. The translation leaves only alphabet characters and ``!``, so the
    quoted text holds no JSON escape, quote or control character: the JSON string is exactly
    the base64 text. Raises ``binascii.Error`` as ``binascii.a2b_base64(strict_mode=True)``
    would, for the same inputs.
    """
    try:
        return _BASE64.decode(b'"' + segment.translate(_URLSAFE) + _CLOSING[len(segment) % 4])
    except msgspec.DecodeError:
        raise binascii.Error("not base64url") from None


_JSON = json.JSONDecoder(object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)
_FAST_JSON = msgspec.json.Decoder()
_ENCODE_JSON = msgspec.json.encode


def _strict_json(raw: bytes) -> Any:
    """The JSON value of ``raw``, read as strictly as the stdlib decoder with fw's hooks reads it.

    The fast path is taken only when msgspec's result encodes back to exactly ``raw``: a
    duplicate member would be missing from the re-encoding, a constant such as ``NaN`` is not
    JSON to msgspec, and any other spelling difference (escapes, spaces, number forms) simply
    falls through to the stdlib decoder, which then decides as it always did.
    """
    try:
        data = _FAST_JSON.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        pass
    else:
        if _ENCODE_JSON(data) == raw:
            return data
    return _JSON.decode(raw.decode("utf-8"))


def _decode_part(segment: bytes, what: str) -> dict[str, Any]:
    try:
        raw = _b64decode(segment)
    except binascii.Error:
        raise TokenRejected(f"{what} is not base64url JSON") from None
    return _json_object(raw, what)


def _json_object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        data = _strict_json(raw)
    except (ValueError, RecursionError):
        raise TokenRejected(f"{what} is not base64url JSON") from None
    if not isinstance(data, dict):
        raise TokenRejected(f"{what} is not a JSON object")
    return data


def _canonical_object(raw: bytes) -> dict[str, Any] | None:
    """msgspec's reading of ``raw`` when it is an object that encodes back to exactly ``raw``.

    That equality is what lets the fast path stand for the strict reader (see
    :func:`_strict_json`); ``None`` sends ``raw`` to the strict reader.
    """
    try:
        data = _FAST_JSON.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    return data if type(data) is dict and _ENCODE_JSON(data) == raw else None


def decode_claims(payload: bytes) -> dict[str, Any]:
    """The claims in a payload :meth:`JwsVerifier.payload` returned (each call a new dict)."""
    data = _canonical_object(payload)
    return data if data is not None else _json_object(payload, "payload")


#: What msgspec reads a JSON scalar as: immutable, so a dict holding only these shares nothing.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def claims_source(payload: bytes) -> Callable[[], dict[str, Any]]:
    """Gives, on each call, a new claims dict reading ``payload`` exactly as :func:`decode_claims` does.

    For the verified-token cache, which hands every request its own claims. No two calls share
    a mutable object, so a handler changing its claims changes no other request's. The cheapest
    way that keeps both promises is chosen once, here:

    * a payload the fast path accepts (msgspec's reading encodes back to the same bytes) whose
      claims are all scalars: a copy of one private reading (a shallow copy of a dict of
      immutable values shares nothing that can change);
    * a payload the fast path accepts with lists or objects among its claims: msgspec's decoder
      on the payload (its reading needs no re-encoding to prove it again);
    * anything else: :func:`decode_claims` on the payload.
    """
    claims = _canonical_object(payload)
    if claims is None:
        return functools.partial(decode_claims, payload)
    if all(type(value) in _SCALARS for value in claims.values()):
        return claims.copy
    return functools.partial(_FAST_JSON.decode, payload)


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
        #: header segment -> the header it decoded to, for headers that passed every rule.
        self._headers: dict[bytes, dict[str, Any]] = {}
        #: (id of key, alg) -> (the key, its prepared check); the key is held so its id stays its own.
        self._checks: dict[tuple[int, str], tuple[Key, SignatureCheck]] = {}

    def parse(self, token: str) -> CompactJws:
        """Shape and header; raises :class:`AlgorithmRejected` or :class:`TokenRejected`."""
        return CompactJws(*self.split(token))

    def split(self, token: str) -> tuple[dict[str, Any], bytes, bytes]:
        """What :meth:`parse` checks, as ``(header, signing input, signature segment)``.

        The hot path of bearer verification uses the parts without building a :class:`CompactJws`.
        """
        if self._max_bytes is not None and len(token) > self._max_bytes:
            raise TokenRejected("token larger than the limit")
        first, last = token.find("."), token.rfind(".")
        # Exactly two dots, found by memchr rather than str.count's character loop.
        if first == last or token.find(".", first + 1, last) != -1:
            raise TokenRejected("not a compact JWS (encrypted or malformed)")
        try:
            raw = token.encode("ascii")
        except UnicodeEncodeError:
            raise TokenRejected("not base64url segments") from None
        signing_input, _, signature = raw.rpartition(b".")
        segment = signing_input.partition(b".")[0]
        header = self._headers.get(segment)
        if header is None:
            header = self._header(segment)
            if len(self._headers) >= MAX_REMEMBERED:
                self._headers.clear()  # a flood of distinct headers only costs the flooder
            self._headers[segment] = header
        # Each token gets its own copy: a caller changing its header changes no other token's.
        return dict(header), signing_input, signature

    def _header(self, segment: bytes) -> dict[str, Any]:
        """Decode a header segment and apply every header rule."""
        header = _decode_part(segment, "header")
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
        return header

    def claims(self, jws: CompactJws, key: Key | None) -> dict[str, Any]:
        """The payload, once the signature verifies with ``key``; otherwise :class:`TokenRejected`."""
        return decode_claims(self.payload(jws, key))

    def payload(self, jws: CompactJws, key: Key | None) -> bytes:
        """The payload's JSON bytes, once the signature verifies with ``key`` (not decoded yet)."""
        return self.signed_payload(jws.header, jws.signing_input, jws.signature, key)

    def signed_payload(
        self, header: dict[str, Any], signing_input: bytes, signature: bytes, key: Key | None
    ) -> bytes:
        """:meth:`payload` for the parts :meth:`split` returned."""
        alg: str = header["alg"]
        if key is None:
            raise TokenRejected(f"no published key for kid={header.get('kid')!r} alg={alg}")
        try:
            valid = self._check_for(key, header)(signing_input, _b64decode(signature))
        except (ValueError, TypeError) as error:
            raise TokenRejected(f"signature: {type(error).__name__}") from None
        if not valid:
            raise TokenRejected("signature does not verify")
        try:
            return _b64decode(signing_input.partition(b".")[2])
        except binascii.Error:
            raise TokenRejected("payload is not base64url JSON") from None

    def _check_for(self, key: Key, header: dict[str, Any]) -> SignatureCheck:
        """The prepared check for ``key`` and the token's algorithm; :class:`TokenRejected` if unfit."""
        alg: str = header["alg"]
        remembered = self._checks.get((id(key), alg))
        if remembered is not None and remembered[0] is key:
            return remembered[1]
        if not fits(key, alg):
            raise TokenRejected(f"no published key for kid={header.get('kid')!r} alg={alg}")
        check = prepare(key, alg)
        if len(self._checks) >= MAX_REMEMBERED:
            self._checks.clear()
        self._checks[(id(key), alg)] = (key, check)
        return check
