"""The three binary artefacts of a WebAuthn response, read strictly: ``clientDataJSON``,
``authenticatorData`` and the CBOR ``attestationObject``.

Reading them here, before any verification, is what separates "not a WebAuthn response" (400) from
"a response that does not verify" (403): py_webauthn's own parsers are lenient (trailing bytes
after CBOR, short slices of truncated data) and raise a mix of exception types. Every function
raises ``ValueError`` with a message naming what is wrong; nothing else escapes.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

import cbor2

from fw.base64url import decode

UP = 0x01  # user present
UV = 0x04  # user verified
BE = 0x08  # backup eligible
BS = 0x10  # backup state (backed up)
AT = 0x40  # attested credential data follows
ED = 0x80  # extension data follows

_HEADER = 37  # rpIdHash (32) + flags (1) + signCount (4)
_AAGUID = 16
#: WebAuthn bounds a credential ID at 1023 bytes.
MAX_CREDENTIAL_ID = 1023
_PLAIN = (int, bytes, str, bool, float, type(None))


@dataclass(frozen=True, slots=True)
class ClientData:
    """``clientDataJSON``: what the browser says it was asked, by whom, for what."""

    type: str
    challenge: bytes
    origin: str
    cross_origin: bool


@dataclass(frozen=True, slots=True)
class AttestedCredential:
    """The new credential inside registration authenticator data."""

    aaguid: bytes
    credential_id: bytes
    public_key: bytes  # the COSE_Key exactly as the authenticator encoded it
    alg: int


@dataclass(frozen=True, slots=True)
class AuthenticatorData:
    """``authenticatorData``: the bytes the authenticator signs, taken apart."""

    rp_id_hash: bytes
    flags: int
    sign_count: int
    attested: AttestedCredential | None

    def has(self, flag: int) -> bool:
        return bool(self.flags & flag)


@dataclass(frozen=True, slots=True)
class AttestationObject:
    """The CBOR ``attestationObject``: format, statement, the registration authenticator data and
    the new credential inside it (always present: an attestation without one is refused)."""

    fmt: str
    statement: dict[Any, Any]
    auth_data: AuthenticatorData
    credential: AttestedCredential


def parse_client_data(raw: bytes) -> ClientData:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # bad UTF-8 and bad JSON are both ValueErrors
        raise ValueError("is not UTF-8 JSON") from exc
    if not isinstance(value, dict):
        raise ValueError("is not a JSON object")
    for member in ("type", "challenge", "origin"):
        if not isinstance(value.get(member), str):
            raise ValueError(f"lacks the string member {member!r}")
    cross_origin = value.get("crossOrigin", False)
    if not isinstance(cross_origin, bool):
        raise ValueError("has a crossOrigin that is not a boolean")
    try:
        challenge = decode(value["challenge"])
    except ValueError as exc:
        raise ValueError("has a challenge that is not Base64url") from exc
    return ClientData(value["type"], challenge, value["origin"], cross_origin)


def parse_authenticator_data(raw: bytes) -> AuthenticatorData:
    if len(raw) < _HEADER:
        raise ValueError(f"is {len(raw)} bytes, shorter than the {_HEADER}-byte header")
    flags = raw[32]
    end = _HEADER
    attested = None
    if flags & AT:
        attested, end = _attested_credential(raw, end)
    if flags & ED:
        extensions, end = _cbor_item(raw, end)
        if not isinstance(extensions, dict):
            raise ValueError("has extension data that is not a CBOR map")
    if end != len(raw):
        raise ValueError(f"has {len(raw) - end} bytes after its last field")
    return AuthenticatorData(raw[:32], flags, int.from_bytes(raw[33:37], "big"), attested)


def parse_attestation_object(raw: bytes) -> AttestationObject:
    value, end = _cbor_item(raw, 0)
    if end != len(raw):
        raise ValueError("has bytes after its CBOR map")
    if not isinstance(value, dict):
        raise ValueError("is not a CBOR map")
    fmt, statement, auth_data = value.get("fmt"), value.get("attStmt"), value.get("authData")
    if not isinstance(fmt, str) or not isinstance(statement, dict) or not isinstance(auth_data, bytes):
        raise ValueError("lacks fmt (text), attStmt (map) or authData (bytes)")
    try:
        parsed = parse_authenticator_data(auth_data)
    except ValueError as exc:
        raise ValueError(f"has authData that {exc}") from exc
    if parsed.attested is None:
        raise ValueError("has authData without attested credential data")
    return AttestationObject(fmt, statement, parsed, parsed.attested)


def _attested_credential(raw: bytes, start: int) -> tuple[AttestedCredential, int]:
    length_at = start + _AAGUID
    if len(raw) < length_at + 2:
        raise ValueError("ends inside its attested credential data")
    id_length = int.from_bytes(raw[length_at : length_at + 2], "big")
    key_at = length_at + 2 + id_length
    if not 1 <= id_length <= MAX_CREDENTIAL_ID or len(raw) < key_at:
        raise ValueError("has a credential ID of impossible length")
    key, end = _cbor_item(raw, key_at)
    if not isinstance(key, dict) or not isinstance(key.get(1), int) or not isinstance(key.get(3), int):
        raise ValueError("has a credential public key that is not a COSE_Key map (kty, alg)")
    return AttestedCredential(raw[start:length_at], raw[length_at + 2 : key_at], raw[key_at:end], key[3]), end


def _cbor_item(raw: bytes, start: int) -> tuple[Any, int]:
    """Decode the one CBOR item at ``start``; return it and where it ends. CTAP2 writes definite
    lengths, no duplicate keys and no tags, so anything else is refused."""
    stream = io.BytesIO(raw)
    stream.seek(start)
    decoder = cbor2.CBORDecoder(stream, max_depth=8, allow_indefinite=False, allow_duplicate_keys=False)
    try:
        value = decoder.decode()
    except Exception as exc:  # cbor2 raises many types on hostile input; each means "not CBOR"
        raise ValueError("holds invalid CBOR") from exc
    if not _plain(value):
        raise ValueError("holds CBOR tags or simple values CTAP2 never writes")
    return value, stream.tell()


def _plain(value: object) -> bool:
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return isinstance(value, _PLAIN)
