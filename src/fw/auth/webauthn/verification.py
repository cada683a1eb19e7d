"""Verify a well-formed response against the ceremony that asked for it, with py_webauthn as the
authority on attestation and signatures.

The relying-party checks (ceremony type, challenge, origin, RP ID, presence, verification, backup
flags, algorithm, user handle, sign count) run here first, each naming its own
:class:`Rejection`; py_webauthn then verifies the whole response again, cryptography included.
Any failure, whatever py_webauthn or cryptography raised, leaves as one :class:`PasskeyRejected`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.structs import (
    AuthenticationCredential,
    AuthenticatorAssertionResponse,
    AuthenticatorAttestationResponse,
    RegistrationCredential,
)

from fw.auth.webauthn.errors import PasskeyRejected, Rejection
from fw.auth.webauthn.options import ALGORITHMS
from fw.auth.webauthn.relying_party import RelyingParty
from fw.auth.webauthn.responses import AuthenticationResponse, RegistrationResponse
from fw.auth.webauthn.structures import BE, BS, UP, UV, AuthenticatorData, ClientData
from fw.base64url import encode


@dataclass(frozen=True, slots=True)
class KnownCredential:
    """What a sign-in is verified against: the stored credential the response's ID names, as the
    store holds it (``user_handle`` is the ``user.id`` it was registered under)."""

    credential_id: bytes
    public_key: bytes
    sign_count: int
    user_handle: bytes
    backup_eligible: bool


@dataclass(frozen=True, slots=True)
class RegisteredCredential:
    """A verified new credential: everything worth storing. The caller still refuses an ID that
    is already stored (an authenticator honouring ``excludeCredentials`` never sends one)."""

    credential_id: bytes
    public_key: bytes  # COSE_Key bytes, what verify_authentication needs back
    alg: int
    sign_count: int
    backup_eligible: bool
    backup_state: bool
    user_verified: bool
    transports: tuple[str, ...]
    aaguid: str
    attestation_format: str


@dataclass(frozen=True, slots=True)
class VerifiedAssertion:
    """A verified sign-in. ``sign_count`` is what to store (never below the stored one);
    ``backup_state`` may change between sign-ins and is stored each time."""

    credential_id: bytes
    sign_count: int
    backup_state: bool
    user_verified: bool


def verify_registration(
    response: RegistrationResponse, *, party: RelyingParty, challenge: bytes
) -> RegisteredCredential:
    """Verify a registration answer to the options that carried ``challenge``."""
    auth_data = response.attestation.auth_data
    attested = response.attestation.credential
    _check_ceremony(response.client_data, auth_data, party, challenge, "webauthn.create")
    if attested.alg not in ALGORITHMS:
        raise PasskeyRejected(Rejection.ALGORITHM)
    if attested.credential_id != response.credential_id:
        raise PasskeyRejected(Rejection.CREDENTIAL_ID)
    if response.attestation.fmt == "none" and response.attestation.statement:  # §8.7: an empty map
        raise PasskeyRejected(Rejection.ATTESTATION)
    credential_id = response.credential_id
    attestation = AuthenticatorAttestationResponse(response.client_data_json, response.attestation_object)
    try:
        verified = verify_registration_response(
            credential=RegistrationCredential(encode(credential_id), credential_id, attestation),
            **_expectations(party, challenge),
            supported_pub_key_algs=[COSEAlgorithmIdentifier(alg) for alg in ALGORITHMS],
        )
    except Exception as exc:  # attestation verifiers raise many types on hostile statements
        raise PasskeyRejected(Rejection.ATTESTATION) from exc
    return RegisteredCredential(
        credential_id=attested.credential_id,
        public_key=bytes(verified.credential_public_key),
        alg=attested.alg,
        sign_count=auth_data.sign_count,
        backup_eligible=auth_data.has(BE),
        backup_state=auth_data.has(BS),
        user_verified=auth_data.has(UV),
        transports=response.transports,
        aaguid=str(verified.aaguid),
        attestation_format=response.attestation.fmt,
    )


def verify_authentication(
    response: AuthenticationResponse,
    *,
    party: RelyingParty,
    challenge: bytes,
    credential: KnownCredential | None,
) -> VerifiedAssertion:
    """Verify a sign-in answer; ``credential`` is the stored credential ``response.credential_id``
    names, or ``None`` when there is none (refused like every other failure)."""
    if credential is None or not hmac.compare_digest(credential.credential_id, response.credential_id):
        raise PasskeyRejected(Rejection.UNKNOWN_CREDENTIAL)
    auth_data = response.auth_data
    _check_ceremony(response.client_data, auth_data, party, challenge, "webauthn.get")
    if auth_data.has(BE) != credential.backup_eligible:  # eligibility is fixed for a credential's life
        raise PasskeyRejected(Rejection.BACKUP_FLAGS)
    if response.user_handle is None or not hmac.compare_digest(response.user_handle, credential.user_handle):
        raise PasskeyRejected(Rejection.USER_HANDLE)
    stored = credential.sign_count
    if (auth_data.sign_count or stored) and auth_data.sign_count <= stored:  # 0 and 0: a synced passkey
        raise PasskeyRejected(Rejection.SIGN_COUNT)
    assertion = AuthenticatorAssertionResponse(
        response.client_data_json, response.authenticator_data, response.signature, response.user_handle
    )
    credential_id = response.credential_id
    try:
        verify_authentication_response(
            credential=AuthenticationCredential(encode(credential_id), credential_id, assertion),
            **_expectations(party, challenge),
            credential_public_key=credential.public_key,
            credential_current_sign_count=stored,
        )
    except Exception as exc:  # bad signatures, keys or encodings surface as many types
        raise PasskeyRejected(Rejection.SIGNATURE) from exc
    return VerifiedAssertion(
        credential_id=credential_id,
        sign_count=max(stored, auth_data.sign_count),
        backup_state=auth_data.has(BS),
        user_verified=auth_data.has(UV),
    )


def _expectations(party: RelyingParty, challenge: bytes) -> dict[str, Any]:
    """What py_webauthn is told to expect in either ceremony."""
    return {
        "expected_challenge": challenge,
        "expected_rp_id": party.rp_id,
        "expected_origin": list(party.origins),
        "require_user_verification": party.requires_user_verification,
    }


def _check_ceremony(
    client_data: ClientData, auth_data: AuthenticatorData, party: RelyingParty, challenge: bytes, kind: str
) -> None:
    """The checks both ceremonies share (WebAuthn §7.1 and §7.2, the relying party's part)."""
    if client_data.type != kind:
        raise PasskeyRejected(Rejection.CEREMONY_TYPE)
    if not hmac.compare_digest(client_data.challenge, challenge):
        raise PasskeyRejected(Rejection.CHALLENGE)
    if client_data.origin not in party.origins or client_data.cross_origin:
        raise PasskeyRejected(Rejection.ORIGIN)
    if not hmac.compare_digest(auth_data.rp_id_hash, hashlib.sha256(party.rp_id.encode()).digest()):
        raise PasskeyRejected(Rejection.RP_ID)
    if not auth_data.has(UP):
        raise PasskeyRejected(Rejection.USER_PRESENCE)
    if party.requires_user_verification and not auth_data.has(UV):
        raise PasskeyRejected(Rejection.USER_VERIFICATION)
    if auth_data.has(BS) and not auth_data.has(BE):
        raise PasskeyRejected(Rejection.BACKUP_FLAGS)
