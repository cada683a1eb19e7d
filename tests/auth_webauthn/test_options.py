"""The options JSON of DESIGN 9.1, exactly, and the challenges in it."""

from __future__ import annotations

import pytest

from fw.auth.webauthn import (
    CEREMONY_TIMEOUT,
    RelyingParty,
    authentication_options,
    new_challenge,
    registration_options,
)
from fw.base64url import decode, encode

PARTY = RelyingParty("example.com", "Example", ("https://example.com",), "preferred")


def test_registration_options_are_exactly_the_creation_options_json() -> None:
    challenge = bytes(range(32))
    options = registration_options(
        PARTY,
        challenge=challenge,
        user_handle=b"\x01\x02handle",
        user_name="ada@example.com",
        display_name="Ada Lovelace",
        exclude=[b"cred-one", b"\xff\xfe"],
    )
    assert options == {
        "challenge": encode(challenge),
        "rp": {"id": "example.com", "name": "Example"},
        "user": {"id": encode(b"\x01\x02handle"), "name": "ada@example.com", "displayName": "Ada Lovelace"},
        "pubKeyCredParams": [{"type": "public-key", "alg": -7}, {"type": "public-key", "alg": -257}],
        "excludeCredentials": [
            {"type": "public-key", "id": encode(b"cred-one")},
            {"type": "public-key", "id": "__4"},
        ],
        "authenticatorSelection": {
            "residentKey": "required",
            "requireResidentKey": True,
            "userVerification": "preferred",
        },
        "timeout": 300_000,
    }


def test_registration_options_for_an_account_without_passkeys_exclude_nothing() -> None:
    options = registration_options(
        PARTY, challenge=new_challenge(), user_handle=b"h", user_name="a", display_name="A"
    )
    assert options["excludeCredentials"] == []


@pytest.mark.parametrize("handle", [b"", bytes(65)])
def test_a_user_handle_outside_one_to_64_bytes_is_a_programming_error(handle: bytes) -> None:
    with pytest.raises(ValueError, match="1 to 64 bytes"):
        registration_options(
            PARTY, challenge=new_challenge(), user_handle=handle, user_name="a", display_name="A"
        )


def test_authentication_options_ask_for_a_discoverable_credential_without_naming_any() -> None:
    challenge = new_challenge()
    assert authentication_options(PARTY, challenge=challenge) == {
        "challenge": encode(challenge),
        "rpId": "example.com",
        "timeout": 300_000,
        "userVerification": "preferred",
    }


def test_the_options_timeout_is_the_five_minute_ceremony_lifetime() -> None:
    assert CEREMONY_TIMEOUT.total_seconds() * 1000 == 300_000


def test_challenges_are_32_fresh_random_bytes() -> None:
    challenges = {new_challenge() for _ in range(100)}
    assert len(challenges) == 100
    assert {len(c) for c in challenges} == {32}


def test_binary_option_values_are_unpadded_base64url() -> None:
    options = authentication_options(PARTY, challenge=b"\xfb\xff\xfe")
    assert options["challenge"] == "-__-"
    assert decode(options["challenge"]) == b"\xfb\xff\xfe"
