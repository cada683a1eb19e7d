"""The compact JWS reader: three segments, each read or refused exactly as strict `binascii` would."""

from __future__ import annotations

import base64
import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fw.auth.tokens.errors import TokenRejected
from fw.auth.tokens.jws import JwsVerifier, _b64decode

_TO_STANDARD = bytes.maketrans(b"-_+/=", b"+/!!!")
_NEAR_ALPHABET = st.binary(max_size=40).map(
    lambda raw: raw.translate(bytes.maketrans(bytes(range(256)), b'Aa0-_+/="\\ \n\x00\xc3!Z' * 16))
)


def _strict_binascii(segment: bytes) -> bytes:
    """The reading this one must match: standard alphabet, padded, ``strict_mode``."""
    return binascii.a2b_base64(segment.translate(_TO_STANDARD) + b"=" * (-len(segment) % 4), strict_mode=True)


def _outcome(read: object, segment: bytes) -> tuple[str, bytes | None]:
    try:
        return "value", read(segment)  # type: ignore[operator]
    except binascii.Error:
        return "refused", None


@settings(max_examples=500, deadline=None)
@given(segment=st.binary(max_size=40) | _NEAR_ALPHABET)
def test_any_segment_is_read_or_refused_exactly_as_the_strict_binascii_reader_does(segment: bytes) -> None:
    assert _outcome(_b64decode, segment) == _outcome(_strict_binascii, segment)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=64))
def test_every_unpadded_base64url_encoding_reads_back_to_its_bytes(data: bytes) -> None:
    assert _b64decode(base64.urlsafe_b64encode(data).rstrip(b"=")) == data


@pytest.mark.parametrize(
    "segment",
    [
        b"QQ==",
        b"QQ=",
        b"Q",
        b"QQ+/",
        b"QQ/A",
        b"Q\\u0041",
        b'QQ"A',
        b"QQ A",
        b"QQ\nA",
        b"QQ\x00A",
        b"\xc3\xa9AA",
    ],
)
def test_padding_the_standard_alphabet_escapes_spaces_and_other_bytes_are_refused(segment: bytes) -> None:
    with pytest.raises(binascii.Error):
        _b64decode(segment)


@pytest.mark.parametrize("token", ["", "abc", "a.b", "a.b.c.d", "a..b.c", "...", "a.b.c.", ".a.b.c"])
def test_a_token_without_exactly_three_segments_is_not_a_compact_jws(token: str) -> None:
    with pytest.raises(TokenRejected, match="compact JWS"):
        JwsVerifier(["RS256"]).split(token)
