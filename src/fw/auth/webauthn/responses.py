"""``RegistrationResponseJSON`` and ``AuthenticationResponseJSON`` (what ``credential.toJSON()``
writes) taken from a decoded request body, strictly: every member of the right type, every
binary unpadded Base64url within its size cap, ``id`` equal to ``rawId``, and the binary artefacts
themselves well formed. Anything else is one :class:`PasskeyMalformed` naming the member, raised
before any cryptography runs or anything is looked up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fw.auth.webauthn.errors import PasskeyMalformed
from fw.auth.webauthn.options import MAX_USER_HANDLE
from fw.auth.webauthn.structures import (
    MAX_CREDENTIAL_ID,
    AttestationObject,
    AuthenticatorData,
    ClientData,
    parse_attestation_object,
    parse_authenticator_data,
    parse_client_data,
)
from fw.base64url import decode

#: Size caps in decoded bytes. Real values are a fraction of these (clientDataJSON ~200 bytes,
#: a packed attestation with its certificate chain a few KiB, an RSA-4096 signature 512 bytes).
MAX_CLIENT_DATA = 4096
MAX_ATTESTATION_OBJECT = 16384
MAX_AUTHENTICATOR_DATA = 4096
MAX_SIGNATURE = 1024
MAX_TRANSPORTS = 8
MAX_TRANSPORT_LENGTH = 32

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class RegistrationResponse:
    """A well-formed registration answer, not yet verified."""

    credential_id: bytes
    client_data_json: bytes
    client_data: ClientData
    attestation_object: bytes
    attestation: AttestationObject
    transports: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AuthenticationResponse:
    """A well-formed sign-in answer, not yet verified. ``credential_id`` is what to look up;
    ``user_handle`` is ``None`` when the browser sent none (or ``null``)."""

    credential_id: bytes
    client_data_json: bytes
    client_data: ClientData
    authenticator_data: bytes
    auth_data: AuthenticatorData
    signature: bytes
    user_handle: bytes | None


def parse_registration_response(body: object) -> RegistrationResponse:
    """Read a decoded JSON body as ``RegistrationResponseJSON``."""
    credential_id, response = _credential(body)
    return RegistrationResponse(
        credential_id,
        *_artefact(response, "clientDataJSON", MAX_CLIENT_DATA, parse_client_data),
        *_artefact(response, "attestationObject", MAX_ATTESTATION_OBJECT, parse_attestation_object),
        _transports(response),
    )


def parse_authentication_response(body: object) -> AuthenticationResponse:
    """Read a decoded JSON body as ``AuthenticationResponseJSON``."""
    credential_id, response = _credential(body)
    has_user_handle = response.get("userHandle") is not None
    return AuthenticationResponse(
        credential_id,
        *_artefact(response, "clientDataJSON", MAX_CLIENT_DATA, parse_client_data),
        *_artefact(response, "authenticatorData", MAX_AUTHENTICATOR_DATA, parse_authenticator_data),
        _binary(response, "signature", MAX_SIGNATURE),
        _binary(response, "userHandle", MAX_USER_HANDLE) if has_user_handle else None,
    )


def _credential(body: object) -> tuple[bytes, Mapping[str, Any]]:
    """The members every ``PublicKeyCredential`` JSON shares: ``id``, ``rawId``, ``type``,
    ``response``, and the optional ``authenticatorAttachment`` / ``clientExtensionResults``."""
    if not isinstance(body, dict):
        raise PasskeyMalformed("The body is not a JSON object.")
    raw_id = _text(body, "rawId", "rawId")
    if _text(body, "id", "id") != raw_id:
        raise PasskeyMalformed("id and rawId differ.")
    credential_id = _decoded("rawId", raw_id, MAX_CREDENTIAL_ID)
    if body.get("type") != "public-key":
        raise PasskeyMalformed('type must be "public-key".')
    attachment = body.get("authenticatorAttachment")
    if attachment is not None and not isinstance(attachment, str):
        raise PasskeyMalformed("authenticatorAttachment must be a string.")
    if not isinstance(body.get("clientExtensionResults", {}), dict):
        raise PasskeyMalformed("clientExtensionResults must be an object.")
    response = body.get("response")
    if not isinstance(response, dict):
        raise PasskeyMalformed("response must be an object.")
    return credential_id, response


def _text(container: Mapping[str, Any], member: str, name: str) -> str:
    value = container.get(member)
    if not isinstance(value, str):
        raise PasskeyMalformed(f"{name} must be a string.")
    return value


def _binary(response: Mapping[str, Any], member: str, cap: int) -> bytes:
    name = f"response.{member}"
    return _decoded(name, _text(response, member, name), cap)


def _decoded(name: str, text: str, cap: int) -> bytes:
    if len(text) > (cap * 4 + 2) // 3:  # refuse before decoding: the text alone is over the cap
        raise PasskeyMalformed(f"{name} is larger than {cap} bytes.")
    try:
        data = decode(text)
    except ValueError:
        raise PasskeyMalformed(f"{name} is not unpadded Base64url.") from None
    if not data:
        raise PasskeyMalformed(f"{name} is empty.")
    return data


def _artefact(
    response: Mapping[str, Any], member: str, cap: int, parse: Callable[[bytes], _T]
) -> tuple[bytes, _T]:
    """A binary member and what it holds, read by ``parse`` (whose ``ValueError`` says what is wrong)."""
    raw = _binary(response, member, cap)
    try:
        return raw, parse(raw)
    except ValueError as exc:
        raise PasskeyMalformed(f"response.{member} {exc}.") from None


def _transports(response: Mapping[str, Any]) -> tuple[str, ...]:
    transports = response.get("transports", [])
    if (
        not isinstance(transports, list)
        or len(transports) > MAX_TRANSPORTS
        or not all(isinstance(t, str) and 0 < len(t) <= MAX_TRANSPORT_LENGTH for t in transports)
    ):
        raise PasskeyMalformed(f"response.transports must be a list of at most {MAX_TRANSPORTS} strings.")
    return tuple(transports)
