"""Signature checks on cryptography key objects: every allowed algorithm, and what must not verify."""

from __future__ import annotations

import base64

import pytest

from fw.auth.tokens.algorithms import ALGORITHMS
from fw.auth.tokens.signatures import prepare
from fw.testing.issuer import LocalIssuer, generate_key


def _parts(token: str) -> tuple[bytes, bytes]:
    signing_input, _, signature = token.rpartition(".")
    return signing_input.encode(), base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))


@pytest.mark.parametrize("algorithm", sorted(set(ALGORITHMS) - {"Ed25519"}))
def test_each_allowed_algorithm_verifies_its_own_signature_and_not_a_changed_one(algorithm: str) -> None:
    issuer = LocalIssuer(algorithm=algorithm)
    signing_input, signature = _parts(issuer.mint("alice"))
    check = prepare(issuer.signing_key, algorithm)
    assert check(signing_input, signature)
    assert not check(signing_input + b"x", signature)
    assert not check(signing_input, signature[:-1] + bytes([signature[-1] ^ 1]))


def test_an_ecdsa_signature_of_the_wrong_length_does_not_verify() -> None:
    issuer = LocalIssuer(algorithm="ES256")
    signing_input, signature = _parts(issuer.mint("alice"))
    check = prepare(issuer.signing_key, "ES256")
    assert not check(signing_input, signature + b"\0")
    assert not check(signing_input, signature[:-1])


def test_a_key_of_another_type_cannot_be_prepared_for_an_algorithm() -> None:
    with pytest.raises(TypeError):
        prepare(generate_key("RS256", "r"), "ES256")
    with pytest.raises(TypeError):
        prepare(generate_key("ES256", "e"), "RS256")
