"""The runtime helpers generated binders call: media types, query text, format checks, problems."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fw
from fw.binding.body import _declares_empty, _media_type
from fw.binding.values import is_email, is_uuid, query_of


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([(b"content-type", b"application/json")], "application/json"),
        ([(b"content-type", b"Application/JSON; charset=utf-8")], "application/json"),
        ([(b"content-type", b"  text/plain ;x=1")], "text/plain"),
        ([(b"content-type", b"text/plain"), (b"content-type", b"application/json")], "application/json"),
        ([(b"content-type", b"application/json"), (b"content-type", b"text/plain")], "text/plain"),
        ([(b"x-other", b"application/json")], ""),
        ([], ""),
    ],
)
def test_the_media_type_is_the_last_content_type_bare_and_lower_cased(
    headers: list[tuple[bytes, bytes]], expected: str
) -> None:
    assert _media_type(headers) == expected


def test_only_a_zero_content_length_declares_an_empty_body() -> None:
    assert _declares_empty([(b"content-length", b"0")])
    assert not _declares_empty([(b"content-length", b"00"), (b"x-zero", b"0")])
    assert not _declares_empty([])


@given(st.text(alphabet="ab=&+%2F4C3A9", max_size=24))
def test_query_values_decode_as_parse_qsl_does(text: str) -> None:
    expected: dict[str, list[str]] = {}
    for name, value in parse_qsl(text, keep_blank_values=True):
        expected.setdefault(name, []).append(value)
    assert query_of({"query_string": text.encode("ascii")}) == expected


def test_a_query_mixing_plain_and_escaped_pieces_decodes_every_piece() -> None:
    assert query_of({"query_string": b"a=x+y&b=%41&c=plain"}) == {"a": ["x y"], "b": ["A"], "c": ["plain"]}
    assert query_of({"query_string": b""}) == {}
    assert query_of({}) == {}


def test_an_email_is_at_most_254_characters() -> None:
    local = "a" * 64
    domain = ".".join(["b" * 60] * 4)[: 254 - 65 - 4] + ".com"
    assert len(f"{local}@{domain}") == 254
    assert is_email(f"{local}@{domain}")
    assert not is_email(f"{local}a@{domain}")
    assert not is_email("ada@example.com\n")
    assert not is_email("")


def test_a_uuid_is_the_whole_text() -> None:
    assert is_uuid("6f1c2a52-3f0e-4a86-9d3c-2b1d0c9e8f7a")
    assert not is_uuid("6f1c2a52-3f0e-4a86-9d3c-2b1d0c9e8f7a0")
    assert not is_uuid(" 6f1c2a52-3f0e-4a86-9d3c-2b1d0c9e8f7a")


def test_a_bind_error_renders_the_documented_problem_with_text_as_utf8() -> None:
    error = fw.validation(fw.field("prénom", "payload", "required"), fw.field("n", "query", "invalid int"))
    response = error.response()
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert json.loads(response.body) == {
        "type": "about:blank",
        "title": "Validation failed",
        "status": 400,
        "detail": "Validation failed",
        "code": "validation_failed",
        "errors": [
            {"field": "prénom", "location": "payload", "message": "required"},
            {"field": "n", "location": "query", "message": "invalid int"},
        ],
    }
    assert "prénom".encode() in response.body
    assert str(error) == "prénom (payload): required; n (query): invalid int"
