"""One relying party, one page origin, and ceremonies run end to end through fw.auth.webauthn with
the software authenticator: what every passkey protocol test starts from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from fw.auth.webauthn import (
    KnownCredential,
    PasskeyRejected,
    RegisteredCredential,
    Rejection,
    RelyingParty,
    VerifiedAssertion,
    authentication_options,
    new_challenge,
    parse_authentication_response,
    parse_registration_response,
    registration_options,
    verify_authentication,
    verify_registration,
)
from fw.testing.passkeys import SoftAuthenticator

ORIGIN = "https://login.example.test"
PARTY = RelyingParty("example.test", "Example", (ORIGIN, "https://example.test"))
USER_HANDLE = b"account-handle-1"


@dataclass
class Stored:
    """What a credential store keeps for a registered passkey, updated after each sign-in."""

    credential_id: bytes
    public_key: bytes
    sign_count: int
    user_handle: bytes
    backup_eligible: bool
    backup_state: bool

    @classmethod
    def of(cls, registered: RegisteredCredential, user_handle: bytes = USER_HANDLE) -> Stored:
        return cls(
            registered.credential_id,
            registered.public_key,
            registered.sign_count,
            user_handle,
            registered.backup_eligible,
            registered.backup_state,
        )

    def known(self) -> KnownCredential:
        return KnownCredential(
            self.credential_id, self.public_key, self.sign_count, self.user_handle, self.backup_eligible
        )

    def update(self, verified: VerifiedAssertion) -> None:
        self.sign_count = verified.sign_count
        self.backup_state = verified.backup_state


def begin_registration(
    party: RelyingParty = PARTY, *, exclude: tuple[bytes, ...] = ()
) -> tuple[bytes, dict[str, Any]]:
    challenge = new_challenge()
    options = registration_options(
        party,
        challenge=challenge,
        user_handle=USER_HANDLE,
        user_name="ada@example.test",
        display_name="Ada",
        exclude=exclude,
    )
    return challenge, options


def finish_registration(
    answer: dict[str, Any], challenge: bytes, party: RelyingParty = PARTY
) -> RegisteredCredential:
    return verify_registration(parse_registration_response(answer), party=party, challenge=challenge)


def register(authenticator: SoftAuthenticator, party: RelyingParty = PARTY, **create: Any) -> Stored:
    """A registration that must succeed; the stored credential it yields."""
    challenge, options = begin_registration(party)
    return Stored.of(finish_registration(authenticator.create(options, **create), challenge, party))


def begin_login(party: RelyingParty = PARTY) -> tuple[bytes, dict[str, Any]]:
    challenge = new_challenge()
    return challenge, authentication_options(party, challenge=challenge)


def finish_login(
    answer: dict[str, Any], challenge: bytes, stored: Stored | None, party: RelyingParty = PARTY
) -> VerifiedAssertion:
    return verify_authentication(
        parse_authentication_response(answer),
        party=party,
        challenge=challenge,
        credential=None if stored is None else stored.known(),
    )


def login(authenticator: SoftAuthenticator, stored: Stored, party: RelyingParty = PARTY, **get: Any) -> None:
    """A sign-in that must succeed; the stored credential is updated as a store would."""
    challenge, options = begin_login(party)
    stored.update(finish_login(authenticator.get(options, **get), challenge, stored, party))


def rejection(finish: Callable[..., object], *arguments: object) -> Rejection:
    """Why ``finish(*arguments)`` refused the answer; the test fails if it did not."""
    with pytest.raises(PasskeyRejected) as refused:
        finish(*arguments)
    return refused.value.reason
