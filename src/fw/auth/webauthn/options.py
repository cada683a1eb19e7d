"""The options a ceremony's ``begin`` answers with, as the JSON ``parseCreationOptionsFromJSON`` /
``parseRequestOptionsFromJSON`` read (DESIGN 9.1), and the challenges inside them.

Passkeys here are discoverable credentials: registration demands a resident key, and sign-in sends
no ``allowCredentials``, so nobody types a user name and the server reveals no credential list.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from fw.auth.webauthn.relying_party import RelyingParty
from fw.base64url import encode

#: How long a begun ceremony lives; the options' ``timeout`` tells the browser the same.
CEREMONY_TIMEOUT = timedelta(minutes=5)
#: COSE algorithm identifiers offered, in order of preference: ES256, then RS256.
ES256 = -7
RS256 = -257
ALGORITHMS: tuple[int, ...] = (ES256, RS256)
#: WebAuthn bounds ``user.id`` (the user handle) at 64 bytes.
MAX_USER_HANDLE = 64
CHALLENGE_BYTES = 32

_TIMEOUT_MS = int(CEREMONY_TIMEOUT.total_seconds() * 1000)


def new_challenge() -> bytes:
    """A fresh single-use challenge (32 random bytes); the caller stores it with the ceremony."""
    return secrets.token_bytes(CHALLENGE_BYTES)


def registration_options(
    party: RelyingParty,
    *,
    challenge: bytes,
    user_handle: bytes,
    user_name: str,
    display_name: str,
    exclude: Iterable[bytes] = (),
) -> dict[str, Any]:
    """``PublicKeyCredentialCreationOptionsJSON`` for one account.

    ``user_handle`` is the opaque ``user.id`` the authenticator returns as ``userHandle`` at every
    sign-in (never personal data); ``exclude`` lists the account's existing credential IDs so an
    authenticator that already holds one refuses to create a second.
    """
    if not 1 <= len(user_handle) <= MAX_USER_HANDLE:
        raise ValueError(f"a user handle is 1 to {MAX_USER_HANDLE} bytes, got {len(user_handle)}")
    return {
        "challenge": encode(challenge),
        "rp": {"id": party.rp_id, "name": party.rp_name},
        "user": {"id": encode(user_handle), "name": user_name, "displayName": display_name},
        "pubKeyCredParams": [{"type": "public-key", "alg": alg} for alg in ALGORITHMS],
        "excludeCredentials": [{"type": "public-key", "id": encode(c)} for c in exclude],
        "authenticatorSelection": {
            "residentKey": "required",
            "requireResidentKey": True,
            "userVerification": party.user_verification,
        },
        "timeout": _TIMEOUT_MS,
    }


def authentication_options(party: RelyingParty, *, challenge: bytes) -> dict[str, Any]:
    """``PublicKeyCredentialRequestOptionsJSON`` for a discoverable sign-in (no allowCredentials)."""
    return {
        "challenge": encode(challenge),
        "rpId": party.rp_id,
        "timeout": _TIMEOUT_MS,
        "userVerification": party.user_verification,
    }
