"""The software authenticator answers like a browser and its authenticator, so the protocol tests
(and an application's) can trust what it sends: encodings, counters, backup flags, discovery."""

from __future__ import annotations

import json

import pytest

from auth_webauthn.support import ORIGIN, PARTY, USER_HANDLE, begin_login, begin_registration
from fw.auth.webauthn import authentication_options, new_challenge
from fw.base64url import decode
from fw.testing.passkeys import NoCredential, SoftAuthenticator, flip_signature, truncate

BINARY_MEMBERS = ("clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle")


def _flags_and_count(answer: dict[str, object]) -> tuple[int, int]:
    data = decode(answer["response"]["authenticatorData"])
    return data[32], int.from_bytes(data[33:37], "big")


def test_answers_are_unpadded_base64url_with_browser_client_data(authenticator: SoftAuthenticator) -> None:
    _, options = begin_registration()
    created = authenticator.create(options)
    _, options = begin_login()
    got = authenticator.get(options)
    for answer in (created, got):
        assert answer["id"] == answer["rawId"]
        for member in BINARY_MEMBERS:
            if member in answer["response"]:
                decode(answer["response"][member])  # raises on padding or another alphabet
    client_data = json.loads(decode(got["response"]["clientDataJSON"]))
    assert client_data == {
        "type": "webauthn.get",
        "challenge": options["challenge"],
        "origin": ORIGIN,
        "crossOrigin": False,
    }
    assert decode(got["response"]["userHandle"]) == USER_HANDLE


def test_a_device_bound_credential_counts_up_with_no_backup_flags(authenticator: SoftAuthenticator) -> None:
    _, options = begin_registration()
    authenticator.create(options)
    seen = [_flags_and_count(authenticator.get(begin_login()[1])) for _ in range(3)]
    assert [count for _, count in seen] == [1, 2, 3]
    assert all(flags & 0x18 == 0 and flags & 0x05 == 0x05 for flags, _ in seen)  # UP and UV, no BE/BS


def test_a_synced_credential_stays_at_zero_and_is_backed_up(authenticator: SoftAuthenticator) -> None:
    _, options = begin_registration()
    authenticator.create(options, synced=True)
    seen = [_flags_and_count(authenticator.get(begin_login()[1])) for _ in range(3)]
    assert seen == [(0x01 | 0x04 | 0x08 | 0x10, 0)] * 3


def test_a_sign_in_picks_the_newest_credential_for_the_rp_id_or_one_allowed(
    authenticator: SoftAuthenticator,
) -> None:
    for _ in range(2):
        authenticator.create(begin_registration()[1])
    first, second = authenticator.credentials
    assert authenticator.get(begin_login()[1])["id"] == second.id
    allowed = {**begin_login()[1], "allowCredentials": [{"type": "public-key", "id": first.id}]}
    assert authenticator.get(allowed)["id"] == first.id


def test_a_sign_in_for_an_rp_id_without_credentials_finds_none(authenticator: SoftAuthenticator) -> None:
    authenticator.create(begin_registration()[1])
    other = {**authentication_options(PARTY, challenge=new_challenge()), "rpId": "elsewhere.test"}
    with pytest.raises(NoCredential):
        authenticator.get(other)


def test_tamper_helpers_change_only_what_they_name_in_a_copy(authenticator: SoftAuthenticator) -> None:
    created = authenticator.create(begin_registration()[1], attestation="none")
    with pytest.raises(ValueError, match="carries no signature"):
        flip_signature(created)
    answer = authenticator.get(begin_login()[1])
    flipped = flip_signature(answer)
    assert flipped["response"]["signature"] != answer["response"]["signature"]
    assert {k: v for k, v in flipped["response"].items() if k != "signature"} == {
        k: v for k, v in answer["response"].items() if k != "signature"
    }
    assert len(decode(truncate(answer, "authenticatorData", 10)["response"]["authenticatorData"])) == 10
    assert len(decode(answer["response"]["authenticatorData"])) == 37  # the original is untouched
