"""The two ways a passkey ceremony fails, and nothing else.

A finish endpoint must answer 400 when the browser sent something that is not a WebAuthn response
at all, and 403, always in one shape, when a well-formed response does not verify: telling an
attacker *which* check failed (unknown credential, wrong origin, bad signature...) would turn the
endpoint into an oracle. ``PasskeyRejected.reason`` keeps the cause for logs and tests only.
"""

from __future__ import annotations

from enum import StrEnum

from fw.problems import Problem


class Rejection(StrEnum):
    """Why a well-formed response did not verify (for logs; never sent to the client)."""

    CEREMONY_TYPE = "ceremony_type"
    CHALLENGE = "challenge"
    ORIGIN = "origin"
    RP_ID = "rp_id"
    USER_PRESENCE = "user_presence"
    USER_VERIFICATION = "user_verification"
    BACKUP_FLAGS = "backup_flags"
    ALGORITHM = "algorithm"
    CREDENTIAL_ID = "credential_id"
    ATTESTATION = "attestation"
    UNKNOWN_CREDENTIAL = "unknown_credential"
    USER_HANDLE = "user_handle"
    SIGN_COUNT = "sign_count"
    SIGNATURE = "signature"


class PasskeyMalformed(Problem):
    """The body is not a WebAuthn response: wrong shape or type, bad Base64url, a field too big or
    truncated. The detail names the member, which is safe: it says nothing about any credential."""

    status = 400
    code = "passkey_malformed"
    title = "Malformed passkey response"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)


class PasskeyRejected(Problem):
    """A well-formed response that does not verify. Every reason renders the same document."""

    status = 403
    code = "passkey_rejected"
    title = "Passkey not accepted"

    def __init__(self, reason: Rejection) -> None:
        self.reason = reason
        super().__init__("The passkey could not be verified.")

    def __str__(self) -> str:
        return f"passkey rejected: {self.reason.value}"
