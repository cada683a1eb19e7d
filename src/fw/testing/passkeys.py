"""A software authenticator for tests of passkey ceremonies, fw's own and an application's.

:class:`SoftAuthenticator` plays the browser and the authenticator together: it answers the
options JSON a ``begin`` endpoint returns with the ``RegistrationResponseJSON`` /
``AuthenticationResponseJSON`` a browser's ``credential.toJSON()`` would post to ``finish``. Keys,
COSE encoding, attestation statements (``none``, ``packed`` with a certificate chain, ``packed``
self attestation) and signatures come from the ``soft-fido2`` package (install ``fw-web[test]``).

Every refusal a relying party must make can be provoked: another origin or RP ID, user presence
or verification missing, a chosen sign count, a foreign user handle, and the functions
:func:`flip_signature`, :func:`truncate` and :func:`replace_member` spoil a finished answer.
``synced=True`` makes a synced passkey: sign count 0 forever and the flags BE|BS. soft-fido2
cannot set the backup-state bit (its ``bs`` option writes 0x0F), so bit 0x10 is set in the
authenticator data here, before anything is signed.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import cbor2
from cryptography import x509
from soft_fido2 import CertUtils, Fido2Authenticator, KeyPair

from fw.base64url import decode, encode

Algorithm = Literal["ES256", "RS256"]
#: ``packed`` carries an x5c chain from this authenticator's own CA; ``self`` is packed self attestation.
Attestation = Literal["none", "packed", "self"]

_BE = 0x08
_BS = 0x10
_FLAGS = 32
_COUNTER = slice(33, 37)
_SOFT_FORMAT = {"none": "none", "packed": "packed", "self": "packed-self"}
_CA_NAME = x509.Name(
    [
        x509.NameAttribute(x509.NameOID.COMMON_NAME, "fw test authenticator CA"),
        x509.NameAttribute(x509.NameOID.ORGANIZATION_NAME, "fw tests"),
        x509.NameAttribute(x509.NameOID.COUNTRY_NAME, "US"),
    ]
)


class CredentialExcluded(Exception):
    """``create`` was asked to register while holding a credential the options exclude (a
    browser reports ``InvalidStateError`` and creates nothing)."""


class NoCredential(LookupError):
    """``get`` holds no credential for the requested RP ID (and allowCredentials, if any)."""


@dataclass(eq=False)
class SoftCredential:
    """One discoverable credential held by the authenticator."""

    credential_id: bytes
    rp_id: str
    user_handle: bytes
    algorithm: Algorithm
    synced: bool
    _device: Fido2Authenticator
    _keys: KeyPair

    @property
    def id(self) -> str:
        """The credential ID as the browser writes it (unpadded Base64url)."""
        return encode(self.credential_id)

    @property
    def sign_count(self) -> int:
        """The counter the next assertion will carry (always 0 for a synced passkey)."""
        return int(self._device.counter)

    @sign_count.setter
    def sign_count(self, value: int) -> None:
        self._device.counter = value


class SoftAuthenticator:
    """Discoverable credentials for any number of RP IDs, used from a page at ``origin``."""

    def __init__(self, origin: str, *, aaguid: bytes = bytes(16)) -> None:
        if len(aaguid) != 16:
            raise ValueError("an AAGUID is 16 bytes")
        self.origin = origin
        self.aaguid = aaguid
        self.credentials: list[SoftCredential] = []
        self._ca: tuple[KeyPair, x509.Certificate] | None = None

    def create(
        self,
        options: Mapping[str, Any],
        *,
        algorithm: Algorithm = "ES256",
        attestation: Attestation = "none",
        synced: bool = False,
        user_present: bool = True,
        user_verified: bool = True,
        origin: str | None = None,
        rp_id: str | None = None,
        transports: Sequence[str] = ("internal",),
    ) -> dict[str, Any]:
        """Answer ``PublicKeyCredentialCreationOptionsJSON`` as ``navigator.credentials.create``
        would; ``origin`` and ``rp_id`` override the page origin and the RP ID that is hashed."""
        target = str(options["rp"]["id"])
        excluded = {decode(c["id"]) for c in options.get("excludeCredentials", [])}
        if any(c.rp_id == target and c.credential_id in excluded for c in self.credentials):
            raise CredentialExcluded("this authenticator already holds an excluded credential")
        keys = _new_keys(algorithm)
        ca_keys, ca_cert = self._authority() if attestation == "packed" else (None, None)
        device = Fido2Authenticator(
            keyPair=keys, aaguid=list(self.aaguid), caKeyPair=ca_keys, caCert=ca_cert, disableCounter=synced
        )
        client_data = self._client_data("webauthn.create", options, origin)
        auth_data = _authenticator_data(
            device, keys, {"rp": {"id": rp_id or target}}, user_present, user_verified, synced, None
        )
        statement = device.process_attestation_statement(
            _SOFT_FORMAT[attestation], hashlib.sha256(client_data).digest(), auth_data, device.cib, keys
        )
        fmt = "none" if attestation == "none" else "packed"
        attestation_object = cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": auth_data})
        credential = SoftCredential(
            credential_id=bytes(device.cib),
            rp_id=target,
            user_handle=decode(options["user"]["id"]),
            algorithm=algorithm,
            synced=synced,
            _device=device,
            _keys=keys,
        )
        self.credentials.append(credential)
        return {
            "id": credential.id,
            "rawId": credential.id,
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": encode(client_data),
                "attestationObject": encode(attestation_object),
                "transports": list(transports),
            },
        }

    def get(
        self,
        options: Mapping[str, Any],
        *,
        credential: SoftCredential | None = None,
        user_present: bool = True,
        user_verified: bool = True,
        origin: str | None = None,
        rp_id: str | None = None,
        sign_count: int | None = None,
        user_handle: bytes | None = None,
    ) -> dict[str, Any]:
        """Answer ``PublicKeyCredentialRequestOptionsJSON`` as ``navigator.credentials.get``
        would, with ``credential`` or the newest one for the RP ID. ``sign_count`` replaces the
        counter of this one answer; ``user_handle`` replaces the handle it reports."""
        chosen = credential or self._discover(options)
        client_data = self._client_data("webauthn.get", options, origin)
        auth_data = _authenticator_data(
            chosen._device,
            chosen._keys,
            {"rpId": rp_id or chosen.rp_id},
            user_present,
            user_verified,
            chosen.synced,
            sign_count,
        )
        signature = chosen._device.assertion_signature(
            auth_data, hashlib.sha256(client_data).digest(), chosen._keys
        )
        return {
            "id": chosen.id,
            "rawId": chosen.id,
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": encode(client_data),
                "authenticatorData": encode(auth_data),
                "signature": encode(bytes(signature)),
                "userHandle": encode(chosen.user_handle if user_handle is None else user_handle),
            },
        }

    def _discover(self, options: Mapping[str, Any]) -> SoftCredential:
        allowed = {decode(c["id"]) for c in options.get("allowCredentials", [])}
        for candidate in reversed(self.credentials):
            if candidate.rp_id == options["rpId"] and (not allowed or candidate.credential_id in allowed):
                return candidate
        raise NoCredential(f"no credential for {options['rpId']!r}")

    def _client_data(self, kind: str, options: Mapping[str, Any], origin: str | None) -> bytes:
        """``clientDataJSON`` as browsers serialize it: compact, members in this order."""
        members = {"type": kind, "challenge": options["challenge"], "origin": origin or self.origin}
        return json.dumps({**members, "crossOrigin": False}, separators=(",", ":")).encode()

    def _authority(self) -> tuple[KeyPair, x509.Certificate]:
        """The CA that signs ``packed`` attestation certificates, made on first use."""
        if self._ca is None:
            keys = KeyPair.generate_ecdsa()
            self._ca = (keys, CertUtils.gen_ca_cert(subject=_CA_NAME, keyPair=keys))
        return self._ca


def flip_signature(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of an answer whose signature (the assertion's, or the packed attestation
    statement's) has one bit flipped."""
    response = answer["response"]
    if "signature" in response:
        return replace_member(answer, "signature", _flipped(decode(response["signature"])))
    attestation = cbor2.loads(decode(response["attestationObject"]))
    if "sig" not in attestation["attStmt"]:
        raise ValueError(f"a {attestation['fmt']!r} attestation carries no signature")
    attestation["attStmt"]["sig"] = _flipped(attestation["attStmt"]["sig"])
    return replace_member(answer, "attestationObject", cbor2.dumps(attestation))


def truncate(answer: Mapping[str, Any], member: str, length: int) -> dict[str, Any]:
    """A copy of an answer whose binary ``response.<member>`` keeps only its first ``length`` bytes."""
    return replace_member(answer, member, decode(answer["response"][member])[:length])


def replace_member(answer: Mapping[str, Any], member: str, data: bytes) -> dict[str, Any]:
    """A copy of an answer with ``response.<member>`` set to ``data`` (Base64url-encoded)."""
    changed = copy.deepcopy(dict(answer))
    changed["response"][member] = encode(data)
    return changed


def _flipped(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 0x01])


def _authenticator_data(
    device: Fido2Authenticator,
    keys: KeyPair,
    request: Mapping[str, Any],
    user_present: bool,
    user_verified: bool,
    synced: bool,
    sign_count: int | None,
) -> bytes:
    """soft-fido2's authenticator data (``request`` holds ``rp.id`` when registering, ``rpId``
    when signing in), then what it cannot set: the backup-state bit and a chosen counter."""
    built = device.build_authenticator_data(request, "packed", keys, user_verified, user_present, be=synced)
    data = bytearray(built)
    if synced:
        data[_FLAGS] |= _BE | _BS
    if sign_count is not None:
        data[_COUNTER] = sign_count.to_bytes(4, "big")
    return bytes(data)


def _new_keys(algorithm: Algorithm) -> KeyPair:
    if algorithm == "RS256":
        return KeyPair.generate_rsa(key_size=2048)
    while True:
        keys = KeyPair.generate_ecdsa()
        numbers = keys.get_public().public_numbers()
        # soft-fido2 writes EC coordinates without leading zero words; keep them 32 bytes long.
        if numbers.x.bit_length() > 224 and numbers.y.bit_length() > 224:
            return keys
