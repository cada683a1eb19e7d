"""Binary values have exactly one accepted spelling: unpadded Base64url."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fw.base64url import decode, encode


@given(st.binary(max_size=200))
def test_every_byte_string_round_trips_through_its_unpadded_spelling(data: bytes) -> None:
    text = encode(data)
    assert "=" not in text and "+" not in text and "/" not in text
    assert decode(text) == data


@pytest.mark.parametrize(
    "text",
    [
        "YQ==",  # padded
        "YQ=",
        "a+b/",  # the standard alphabet
        "YW Jj",  # whitespace
        "YWJj\n",
        "Y",  # a length no encoding has
        "YR",  # stray trailing bits: "YQ" is the one spelling of b"a"
        "é",
    ],
)
def test_any_other_spelling_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        decode(text)
