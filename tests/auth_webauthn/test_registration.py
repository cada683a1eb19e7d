"""Registration: every algorithm and attestation the authenticator offers verifies, and every
refusal the relying party owes is made, each as the one 403 shape."""

from __future__ import annotations

from dataclasses import replace

import pytest

from auth_webauthn.support import ORIGIN, PARTY, begin_registration, finish_registration, rejection
from fw.auth.webauthn import ES256, RS256, PasskeyRejected, Rejection
from fw.base64url import encode
from fw.testing.passkeys import CredentialExcluded, SoftAuthenticator, flip_signature

ALGORITHM_IDS = {"ES256": ES256, "RS256": RS256}


def _refusal(authenticator: SoftAuthenticator, **create: object) -> Rejection:
    challenge, options = begin_registration()
    return rejection(finish_registration, authenticator.create(options, **create), challenge)


@pytest.mark.parametrize("algorithm", ["ES256", "RS256"])
@pytest.mark.parametrize("attestation", ["none", "packed", "self"])
def test_a_registration_verifies_for_each_algorithm_and_attestation(
    authenticator: SoftAuthenticator, algorithm: str, attestation: str
) -> None:
    challenge, options = begin_registration()
    answer = authenticator.create(
        options, algorithm=algorithm, attestation=attestation, transports=["internal", "hybrid"]
    )

    registered = finish_registration(answer, challenge)

    credential = authenticator.credentials[-1]
    assert registered.credential_id == credential.credential_id
    assert registered.alg == ALGORITHM_IDS[algorithm]
    assert registered.attestation_format == ("none" if attestation == "none" else "packed")
    assert registered.sign_count == 0
    assert registered.user_verified
    assert (registered.backup_eligible, registered.backup_state) == (False, False)
    assert registered.transports == ("internal", "hybrid")
    assert registered.aaguid == "01020304-0506-0708-090a-0b0c0d0e0f10"
    assert registered.public_key  # COSE_Key bytes a later sign-in is verified with


def test_a_synced_passkey_registers_backup_eligible_and_backed_up(authenticator: SoftAuthenticator) -> None:
    challenge, options = begin_registration()
    registered = finish_registration(authenticator.create(options, synced=True), challenge)
    assert (registered.backup_eligible, registered.backup_state, registered.sign_count) == (True, True, 0)


def test_a_registration_answered_to_another_challenge_is_refused(authenticator: SoftAuthenticator) -> None:
    _, options = begin_registration()
    other_challenge, _ = begin_registration()
    assert (
        rejection(finish_registration, authenticator.create(options), other_challenge) is Rejection.CHALLENGE
    )


def test_a_registration_from_another_origin_is_refused(authenticator: SoftAuthenticator) -> None:
    assert _refusal(authenticator, origin="https://evil.example") is Rejection.ORIGIN


def test_a_registration_for_another_rp_id_is_refused(authenticator: SoftAuthenticator) -> None:
    assert _refusal(authenticator, rp_id="evil.example") is Rejection.RP_ID


def test_a_registration_without_user_verification_is_refused_when_it_is_required(
    authenticator: SoftAuthenticator,
) -> None:
    assert _refusal(authenticator, user_verified=False) is Rejection.USER_VERIFICATION


@pytest.mark.parametrize("policy", ["preferred", "discouraged"])
def test_a_registration_without_user_verification_passes_when_it_is_not_required(
    authenticator: SoftAuthenticator, policy: str
) -> None:
    party = replace(PARTY, user_verification=policy)
    challenge, options = begin_registration(party)
    registered = finish_registration(authenticator.create(options, user_verified=False), challenge, party)
    assert not registered.user_verified


def test_a_registration_without_user_presence_is_refused(authenticator: SoftAuthenticator) -> None:
    assert _refusal(authenticator, user_present=False) is Rejection.USER_PRESENCE


@pytest.mark.parametrize("algorithm", ["ES256", "RS256"])
def test_a_registration_whose_attestation_signature_was_altered_is_refused(
    authenticator: SoftAuthenticator, algorithm: str
) -> None:
    challenge, options = begin_registration()
    answer = flip_signature(authenticator.create(options, algorithm=algorithm, attestation="self"))
    assert rejection(finish_registration, answer, challenge) is Rejection.ATTESTATION


def test_a_registration_naming_a_credential_id_other_than_the_attested_one_is_refused(
    authenticator: SoftAuthenticator,
) -> None:
    challenge, options = begin_registration()
    answer = authenticator.create(options)
    answer["id"] = answer["rawId"] = encode(b"some other credential")
    assert rejection(finish_registration, answer, challenge) is Rejection.CREDENTIAL_ID


def test_a_sign_in_answer_posted_as_a_registration_is_refused(authenticator: SoftAuthenticator) -> None:
    challenge, options = begin_registration()
    answer = authenticator.create(options)
    sign_in = authenticator.get({"challenge": options["challenge"], "rpId": PARTY.rp_id})
    answer["response"]["clientDataJSON"] = sign_in["response"]["clientDataJSON"]  # webauthn.get
    assert rejection(finish_registration, answer, challenge) is Rejection.CEREMONY_TYPE


def test_a_registration_with_a_key_algorithm_not_offered_is_refused() -> None:
    from soft_fido2 import Fido2Authenticator, KeyPair

    challenge, options = begin_registration()
    keys = KeyPair.generate_ed25519()  # EdDSA: valid WebAuthn, but fw offers ES256 and RS256 only
    answer = Fido2Authenticator(keyPair=keys).credential_create(
        {**options, "origin": ORIGIN}, atteStmtFmt="none", keyPair=keys
    )
    for member in ("clientDataJSON", "attestationObject"):  # soft-fido2 pads; browsers do not
        answer["response"][member] = answer["response"][member].rstrip("=")
    assert rejection(finish_registration, answer, challenge) is Rejection.ALGORITHM


def test_registration_options_exclude_the_accounts_credentials_so_an_authenticator_holding_one_refuses(
    authenticator: SoftAuthenticator,
) -> None:
    challenge, options = begin_registration()
    first = finish_registration(authenticator.create(options), challenge)

    _, again = begin_registration(exclude=(first.credential_id,))
    with pytest.raises(CredentialExcluded):
        authenticator.create(again)
    another = SoftAuthenticator(ORIGIN)  # a second device of the same person may add its own
    challenge, again = begin_registration(exclude=(first.credential_id,))
    assert finish_registration(another.create(again), challenge).credential_id != first.credential_id


def test_every_refusal_renders_the_same_problem_document() -> None:
    documents = [PasskeyRejected(reason).to_dict() for reason in Rejection]
    assert all(document == documents[0] for document in documents)
    assert documents[0]["status"] == 403
    assert documents[0]["code"] == "passkey_rejected"
    assert "challenge" not in documents[0]["detail"]
