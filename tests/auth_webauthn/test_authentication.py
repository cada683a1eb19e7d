"""Sign-in: discoverable credentials verify for every algorithm and attestation; counters,
backup flags and user handles are checked as a relying party must; every refusal is one 403."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from auth_webauthn.support import (
    PARTY,
    Stored,
    begin_login,
    begin_registration,
    finish_login,
    login,
    register,
    rejection,
)
from fw.auth.webauthn import Rejection
from fw.base64url import decode, encode
from fw.testing.passkeys import SoftAuthenticator, flip_signature, replace_member


def _refusal(authenticator: SoftAuthenticator, stored: Stored | None, **get: object) -> Rejection:
    challenge, options = begin_login()
    return rejection(finish_login, authenticator.get(options, **get), challenge, stored)


@pytest.mark.parametrize("algorithm", ["ES256", "RS256"])
@pytest.mark.parametrize("attestation", ["none", "packed", "self"])
def test_a_registered_passkey_signs_in_and_its_counter_moves_forward(
    authenticator: SoftAuthenticator, algorithm: str, attestation: str
) -> None:
    stored = register(authenticator, algorithm=algorithm, attestation=attestation)
    challenge, options = begin_login()

    verified = finish_login(authenticator.get(options), challenge, stored)

    assert verified.credential_id == stored.credential_id
    assert verified.user_verified
    assert not verified.backup_state
    assert verified.sign_count == 1 > stored.sign_count
    stored.update(verified)
    login(authenticator, stored)
    assert stored.sign_count == 2


def test_a_synced_passkey_signs_in_again_and_again_with_count_zero(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator, synced=True)
    for _ in range(3):
        challenge, options = begin_login()
        answer = authenticator.get(options)
        verified = finish_login(answer, challenge, stored)
        assert (verified.sign_count, verified.backup_state) == (0, True)
        stored.update(verified)
    assert stored.sign_count == 0


def test_the_stored_count_is_never_lowered(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    stored.sign_count = 7
    challenge, options = begin_login()
    verified = finish_login(authenticator.get(options, sign_count=8), challenge, stored)
    assert verified.sign_count == 8


@pytest.mark.parametrize("presented", [0, 4, 5])
def test_a_counter_that_did_not_move_forward_is_refused(
    authenticator: SoftAuthenticator, presented: int
) -> None:
    stored = register(authenticator)
    stored.sign_count = 5
    assert _refusal(authenticator, stored, sign_count=presented) is Rejection.SIGN_COUNT


def test_a_counter_that_starts_counting_after_zero_is_accepted(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    assert stored.sign_count == 0
    login(authenticator, stored, sign_count=3)
    assert stored.sign_count == 3


def test_an_unknown_credential_is_refused(authenticator: SoftAuthenticator) -> None:
    register(authenticator)
    assert _refusal(authenticator, None) is Rejection.UNKNOWN_CREDENTIAL


def test_a_credential_other_than_the_one_the_answer_names_is_refused(
    authenticator: SoftAuthenticator,
) -> None:
    register(authenticator)
    other = register(SoftAuthenticator(authenticator.origin))
    challenge, options = begin_login()
    assert (
        rejection(finish_login, authenticator.get(options), challenge, other) is Rejection.UNKNOWN_CREDENTIAL
    )


def test_a_user_handle_of_another_account_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    assert _refusal(authenticator, stored, user_handle=b"account-handle-2") is Rejection.USER_HANDLE


def test_an_answer_without_a_user_handle_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    challenge, options = begin_login()
    answer = authenticator.get(options)
    answer["response"]["userHandle"] = None
    assert rejection(finish_login, answer, challenge, stored) is Rejection.USER_HANDLE


def test_an_answer_to_an_earlier_challenge_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    challenge, options = begin_login()
    answer = authenticator.get(options)
    stored.update(finish_login(answer, challenge, stored))

    replay_challenge, _ = begin_login()  # the replayed answer meets a newer ceremony
    assert rejection(finish_login, answer, replay_challenge, stored) is Rejection.CHALLENGE


def test_an_answer_replayed_to_its_own_challenge_is_refused_by_its_counter(
    authenticator: SoftAuthenticator,
) -> None:
    stored = register(authenticator)
    challenge, options = begin_login()
    answer = authenticator.get(options)
    stored.update(finish_login(answer, challenge, stored))
    assert rejection(finish_login, answer, challenge, stored) is Rejection.SIGN_COUNT


def test_an_answer_from_another_origin_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    assert _refusal(authenticator, stored, origin="https://example.test.evil.example") is Rejection.ORIGIN


def test_an_answer_from_any_configured_origin_is_accepted(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    login(authenticator, stored, origin=PARTY.origins[1])
    assert stored.sign_count == 1


def test_an_answer_for_another_rp_id_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    assert _refusal(authenticator, stored, rp_id="evil.example") is Rejection.RP_ID


def test_an_answer_without_user_verification_is_refused_when_it_is_required(
    authenticator: SoftAuthenticator,
) -> None:
    stored = register(authenticator)
    assert _refusal(authenticator, stored, user_verified=False) is Rejection.USER_VERIFICATION


def test_an_answer_without_user_verification_passes_when_it_is_preferred(
    authenticator: SoftAuthenticator,
) -> None:
    party = replace(PARTY, user_verification="preferred")
    stored = register(authenticator, party)
    challenge, options = begin_login(party)
    verified = finish_login(authenticator.get(options, user_verified=False), challenge, stored, party)
    assert not verified.user_verified


def test_an_answer_without_user_presence_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    assert _refusal(authenticator, stored, user_present=False) is Rejection.USER_PRESENCE


@pytest.mark.parametrize("algorithm", ["ES256", "RS256"])
def test_an_answer_with_an_altered_signature_is_refused(
    authenticator: SoftAuthenticator, algorithm: str
) -> None:
    stored = register(authenticator, algorithm=algorithm)
    challenge, options = begin_login()
    assert (
        rejection(finish_login, flip_signature(authenticator.get(options)), challenge, stored)
        is Rejection.SIGNATURE
    )


def test_an_answer_signed_by_another_key_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    impostor = register(SoftAuthenticator(authenticator.origin))
    stored.public_key = impostor.public_key
    assert _refusal(authenticator, stored) is Rejection.SIGNATURE


def test_a_registration_answer_posted_as_a_sign_in_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    challenge, options = begin_login()
    answer = authenticator.get(options)
    _, creation = begin_registration()
    creation["challenge"] = options["challenge"]
    created = SoftAuthenticator(authenticator.origin).create(creation)
    answer["response"]["clientDataJSON"] = created["response"]["clientDataJSON"]  # webauthn.create
    assert rejection(finish_login, answer, challenge, stored) is Rejection.CEREMONY_TYPE


def test_a_credential_whose_backup_eligibility_changed_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator, synced=True)
    stored.backup_eligible = False  # registered as single-device, now claims to be syncable
    assert _refusal(authenticator, stored) is Rejection.BACKUP_FLAGS


def test_a_backup_state_without_backup_eligibility_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    challenge, options = begin_login()
    answer = authenticator.get(options)
    data = bytearray(decode(answer["response"]["authenticatorData"]))
    data[32] |= 0x10  # BS without BE: impossible for an honest authenticator
    assert (
        rejection(finish_login, replace_member(answer, "authenticatorData", bytes(data)), challenge, stored)
        is Rejection.BACKUP_FLAGS
    )


def test_a_cross_origin_ceremony_is_refused(authenticator: SoftAuthenticator) -> None:
    stored = register(authenticator)
    challenge, options = begin_login()
    answer = authenticator.get(options)
    client_data = json.loads(decode(answer["response"]["clientDataJSON"]))
    answer["response"]["clientDataJSON"] = encode(json.dumps({**client_data, "crossOrigin": True}).encode())
    assert rejection(finish_login, answer, challenge, stored) is Rejection.ORIGIN
