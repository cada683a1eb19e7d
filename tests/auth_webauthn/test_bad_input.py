"""Bad input: anything that is not a WebAuthn response is one 400 (PasskeyMalformed) before any
verification, naming the member; sizes are capped; nothing else ever escapes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import cbor2
import pytest

from auth_webauthn.support import (
    PARTY,
    Stored,
    begin_login,
    begin_registration,
    finish_login,
    finish_registration,
)
from fw.auth.webauthn import PasskeyMalformed, parse_authentication_response, parse_registration_response
from fw.base64url import decode, encode
from fw.testing.passkeys import SoftAuthenticator, replace_member, truncate

Answer = dict[str, Any]


@pytest.fixture
def registration(authenticator: SoftAuthenticator) -> Answer:
    _, options = begin_registration()
    return authenticator.create(options, attestation="packed")


@pytest.fixture
def assertion(authenticator: SoftAuthenticator) -> Answer:
    _, options = begin_registration()
    authenticator.create(options)
    _, options = begin_login()
    return authenticator.get(options)


def _malformed(parse: Callable[[object], object], body: object) -> str:
    with pytest.raises(PasskeyMalformed) as malformed:
        parse(body)
    assert malformed.value.status == 400
    return str(malformed.value.detail)


def _with(answer: Answer, path: str, value: object) -> Answer:
    changed = copy.deepcopy(answer)
    *parents, last = path.split(".")
    target = changed
    for parent in parents:
        target = target[parent]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return changed


_DELETE = object()
_COMMON = [
    ("id", _DELETE, "id must be a string"),
    ("rawId", _DELETE, "rawId must be a string"),
    ("id", 7, "id must be a string"),
    ("rawId", ["AAAA"], "rawId must be a string"),
    ("id", "AAAA", "id and rawId differ"),
    ("type", _DELETE, "type must be"),
    ("type", "public_key", "type must be"),
    ("response", _DELETE, "response must be an object"),
    ("response", "{}", "response must be an object"),
    ("authenticatorAttachment", 1, "authenticatorAttachment must be a string"),
    ("clientExtensionResults", [], "clientExtensionResults must be an object"),
    ("response.clientDataJSON", _DELETE, "response.clientDataJSON must be a string"),
    ("response.clientDataJSON", 12, "response.clientDataJSON must be a string"),
    ("response.clientDataJSON", "", "response.clientDataJSON is empty"),
    ("response.clientDataJSON", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0=", "not unpadded Base64url"),
    ("response.clientDataJSON", "eyJ0eXBl+/", "not unpadded Base64url"),
]


@pytest.mark.parametrize("body", [None, [], "answer", 3, True])
@pytest.mark.parametrize("parse", [parse_registration_response, parse_authentication_response])
def test_a_body_that_is_not_a_json_object_is_malformed(
    parse: Callable[[object], object], body: object
) -> None:
    assert _malformed(parse, body) == "The body is not a JSON object."


@pytest.mark.parametrize(("path", "value", "detail"), _COMMON)
def test_a_wrongly_typed_or_missing_credential_member_is_malformed(
    registration: Answer, assertion: Answer, path: str, value: object, detail: str
) -> None:
    assert detail in _malformed(parse_registration_response, _with(registration, path, value))
    assert detail in _malformed(parse_authentication_response, _with(assertion, path, value))


def test_an_id_spelled_with_padding_is_malformed(assertion: Answer) -> None:
    padded = assertion["rawId"] + "=" * (-len(assertion["rawId"]) % 4 or 4)
    changed = _with(_with(assertion, "id", padded), "rawId", padded)
    assert "rawId is not unpadded Base64url" in _malformed(parse_authentication_response, changed)


@pytest.mark.parametrize(
    ("ceremony", "path", "value", "detail"),
    [
        (
            "registration",
            "response.attestationObject",
            _DELETE,
            "response.attestationObject must be a string",
        ),
        ("registration", "response.attestationObject", None, "response.attestationObject must be a string"),
        ("registration", "response.attestationObject", "o2Nm bXQ", "not unpadded Base64url"),
        ("registration", "response.transports", "internal", "response.transports must be a list"),
        ("registration", "response.transports", [1], "response.transports must be a list"),
        ("registration", "response.transports", ["usb"] * 9, "response.transports must be a list"),
        ("registration", "response.transports", ["x" * 33], "response.transports must be a list"),
        ("assertion", "response.authenticatorData", _DELETE, "response.authenticatorData must be a string"),
        ("assertion", "response.signature", _DELETE, "response.signature must be a string"),
        ("assertion", "response.signature", "", "response.signature is empty"),
        ("assertion", "response.signature", "MEUC=", "not unpadded Base64url"),
        ("assertion", "response.userHandle", 5, "response.userHandle must be a string"),
        ("assertion", "response.userHandle", "", "response.userHandle is empty"),
        (
            "assertion",
            "response.userHandle",
            encode(bytes(65)),
            "response.userHandle is larger than 64 bytes",
        ),
    ],
)
def test_a_wrongly_typed_ceremony_member_is_malformed(
    registration: Answer, assertion: Answer, ceremony: str, path: str, value: object, detail: str
) -> None:
    if ceremony == "registration":
        assert detail in _malformed(parse_registration_response, _with(registration, path, value))
    else:
        assert detail in _malformed(parse_authentication_response, _with(assertion, path, value))


def test_an_absent_user_handle_is_well_formed(assertion: Answer) -> None:
    assert parse_authentication_response(_with(assertion, "response.userHandle", _DELETE)).user_handle is None


@pytest.mark.parametrize(
    ("member", "cap"),
    [("clientDataJSON", 4096), ("authenticatorData", 4096), ("signature", 1024)],
)
def test_an_oversized_sign_in_member_is_malformed(assertion: Answer, member: str, cap: int) -> None:
    oversized = replace_member(assertion, member, bytes(cap + 1))
    assert f"response.{member} is larger than {cap} bytes" in _malformed(
        parse_authentication_response, oversized
    )


@pytest.mark.parametrize(("member", "cap"), [("clientDataJSON", 4096), ("attestationObject", 16384)])
def test_an_oversized_registration_member_is_malformed(registration: Answer, member: str, cap: int) -> None:
    oversized = replace_member(registration, member, bytes(cap + 1))
    assert f"response.{member} is larger than {cap} bytes" in _malformed(
        parse_registration_response, oversized
    )


def test_an_oversized_credential_id_is_malformed(assertion: Answer) -> None:
    huge = encode(bytes(1024))
    changed = _with(_with(assertion, "id", huge), "rawId", huge)
    assert "rawId is larger than 1023 bytes" in _malformed(parse_authentication_response, changed)


def _client_data(value: object) -> bytes:
    return value if isinstance(value, bytes) else json.dumps(value).encode()


@pytest.mark.parametrize(
    ("client_data", "detail"),
    [
        (b"\xff\xfe", "is not UTF-8 JSON"),
        (b"{not json", "is not UTF-8 JSON"),
        (["webauthn.get"], "is not a JSON object"),
        ({"type": "webauthn.get", "origin": "https://example.test"}, "lacks the string member 'challenge'"),
        (
            {"type": 1, "challenge": "AAAA", "origin": "https://example.test"},
            "lacks the string member 'type'",
        ),
        ({"type": "webauthn.get", "challenge": "AAAA", "origin": None}, "lacks the string member 'origin'"),
        (
            {"type": "webauthn.get", "challenge": "AA==", "origin": "o"},
            "has a challenge that is not Base64url",
        ),
        ({"type": "webauthn.get", "challenge": "AAAA", "origin": "o", "crossOrigin": "no"}, "crossOrigin"),
        (b"[" * 100_000 + b"]" * 100_000, "larger than 4096 bytes"),
    ],
)
def test_client_data_that_is_not_the_client_data_json_is_malformed(
    registration: Answer, assertion: Answer, client_data: object, detail: str
) -> None:
    for parse, answer in (
        (parse_registration_response, registration),
        (parse_authentication_response, assertion),
    ):
        changed = replace_member(answer, "clientDataJSON", _client_data(client_data))
        assert detail in _malformed(parse, changed)


@pytest.mark.parametrize("length", [0, 1, 20, 32, 36])
def test_authenticator_data_shorter_than_its_header_is_malformed(assertion: Answer, length: int) -> None:
    detail = _malformed(parse_authentication_response, truncate(assertion, "authenticatorData", length))
    assert "response.authenticatorData" in detail


def test_authenticator_data_with_bytes_after_its_last_field_is_malformed(assertion: Answer) -> None:
    extended = replace_member(
        assertion, "authenticatorData", decode(assertion["response"]["authenticatorData"]) + b"\0"
    )
    assert "1 bytes after its last field" in _malformed(parse_authentication_response, extended)


def test_authenticator_data_announcing_extensions_it_does_not_carry_is_malformed(assertion: Answer) -> None:
    data = bytearray(decode(assertion["response"]["authenticatorData"]))
    data[32] |= 0x80
    assert "invalid CBOR" in _malformed(
        parse_authentication_response, replace_member(assertion, "authenticatorData", bytes(data))
    )


def _attestation(answer: Answer) -> dict[str, Any]:
    return dict(cbor2.loads(decode(answer["response"]["attestationObject"])))


def _header_without_at(auth_data: bytes) -> bytes:
    return auth_data[:32] + bytes([auth_data[32] & ~0x40]) + auth_data[33:37]


def _with_attestation(answer: Answer, raw: bytes) -> Answer:
    return replace_member(answer, "attestationObject", raw)


def test_every_truncation_of_an_attestation_object_is_malformed(registration: Answer) -> None:
    whole = decode(registration["response"]["attestationObject"])
    for length in range(1, len(whole)):
        detail = _malformed(parse_registration_response, truncate(registration, "attestationObject", length))
        assert detail.startswith("response.attestationObject")


def test_every_truncation_of_authenticator_data_inside_an_attestation_is_malformed(
    registration: Answer,
) -> None:
    attestation = _attestation(registration)
    whole = attestation["authData"]
    for length in range(len(whole)):
        truncated = cbor2.dumps({**attestation, "authData": whole[:length]})
        detail = _malformed(parse_registration_response, _with_attestation(registration, truncated))
        assert detail.startswith("response.attestationObject has authData that")


@pytest.mark.parametrize(
    ("build", "detail"),
    [
        (lambda a: cbor2.dumps(a) + b"\0", "has bytes after its CBOR map"),
        (lambda a: cbor2.dumps([a["fmt"], a["authData"]]), "is not a CBOR map"),
        (lambda a: cbor2.dumps({**a, "fmt": 1}), "lacks fmt"),
        (lambda a: cbor2.dumps({k: v for k, v in a.items() if k != "authData"}), "lacks fmt"),
        (lambda a: cbor2.dumps({**a, "attStmt": []}), "lacks fmt"),
        (
            lambda a: cbor2.dumps({**a, "authData": _header_without_at(a["authData"])}),
            "without attested credential",
        ),
        (lambda a: cbor2.dumps({**a, "authData": a["authData"] + b"\xa0"}), "after its last field"),
        (lambda a: cbor2.dumps(cbor2.CBORTag(55799, a)), "CBOR tags"),
        (lambda a: b"\xbf" + cbor2.dumps(a)[1:] + b"\xff", "invalid CBOR"),  # indefinite-length map
        (lambda a: b"\xff", "invalid CBOR"),
    ],
)
def test_an_attestation_object_that_is_not_one_is_malformed(
    registration: Answer, build: Callable[[dict[str, Any]], bytes], detail: str
) -> None:
    raw = build(_attestation(registration))
    assert detail in _malformed(parse_registration_response, _with_attestation(registration, raw))


def test_a_credential_public_key_that_is_not_a_cose_key_is_malformed(registration: Answer) -> None:
    attestation = _attestation(registration)
    auth_data = attestation["authData"]
    id_length = int.from_bytes(auth_data[53:55], "big")
    broken = auth_data[: 55 + id_length] + cbor2.dumps({"kty": "EC2"})
    raw = cbor2.dumps({**attestation, "authData": broken})
    assert "COSE_Key" in _malformed(parse_registration_response, _with_attestation(registration, raw))


def test_a_credential_id_length_beyond_the_data_is_malformed(registration: Answer) -> None:
    attestation = _attestation(registration)
    auth_data = bytearray(attestation["authData"])
    auth_data[53:55] = (1023).to_bytes(2, "big")
    raw = cbor2.dumps({**attestation, "authData": bytes(auth_data)})
    assert "impossible length" in _malformed(
        parse_registration_response, _with_attestation(registration, raw)
    )


def test_a_malformed_answer_is_refused_before_anything_is_verified(authenticator: SoftAuthenticator) -> None:
    challenge, options = begin_registration()
    answer = truncate(authenticator.create(options), "attestationObject", 10)
    with pytest.raises(PasskeyMalformed):
        finish_registration(answer, challenge)
    stored = Stored(b"x", b"y", 0, b"z", False, False)
    challenge, options = begin_login(PARTY)
    with pytest.raises(PasskeyMalformed):
        finish_login(truncate(authenticator.get(options), "authenticatorData", 36), challenge, stored)
