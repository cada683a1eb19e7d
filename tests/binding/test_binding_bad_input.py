"""Hostile and malformed input: always a 4xx problem, never a crash or a traceback."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fw

from .bindapp.models import Nested, Profile, Rest, Scalars, Tree
from .support import bind, errors_of

BODY_ERROR = [("body", "payload", "invalid JSON body")]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "raw",
    [b"{", b'{"a":}', b"{'a': 1}", b'{"a": NaN}', b'{"a": Infinity}', b'{"a": 1e999}', b"\xff\xfe{", b"{}x"],
)
async def test_malformed_json_is_one_body_error(raw: bytes) -> None:
    assert await errors_of(Rest, body=raw, content_type="application/json") == BODY_ERROR


@pytest.mark.asyncio
async def test_invalid_utf8_in_a_json_string_is_a_body_error() -> None:
    assert await errors_of(Rest, body=b'{"name": "\xc3\x28"}', content_type="application/json") == BODY_ERROR


@pytest.mark.asyncio
async def test_invalid_utf8_in_a_form_body_is_a_body_error() -> None:
    found = await errors_of(Rest, body=b"name=%C3%28", content_type="application/x-www-form-urlencoded")
    assert found == [("body", "payload", "invalid form body")]


@pytest.mark.asyncio
async def test_huge_numbers_are_rejected_not_crashed_on() -> None:
    assert await errors_of(Scalars, json={"count": 2**63}) == [("count", "payload", "invalid int")]
    assert await errors_of(Scalars, json={"ratio": 10**400}) == [("ratio", "payload", "invalid float")]
    assert await errors_of(Scalars, query="", form={"count": "9" * 30}) == [
        ("count", "payload", "invalid int")
    ]
    digits = b'{"count": ' + b"9" * 5000 + b"}"
    assert await errors_of(Scalars, body=digits, content_type="application/json") == BODY_ERROR


@pytest.mark.asyncio
async def test_text_numbers_are_strict() -> None:
    for text in (" 1", "1_000", "٣", "0x10", "1.0"):
        assert await errors_of(Scalars, form={"count": text}) == [("count", "payload", "invalid int")]
    for text in ("nan", "inf", "1e999", "1,5"):
        assert await errors_of(Scalars, form={"ratio": text}) == [("ratio", "payload", "invalid float")]


@pytest.mark.asyncio
async def test_duplicate_json_keys_take_the_last_value() -> None:
    bound = await bind(Rest, body=b'{"name": "first", "name": "last"}', content_type="application/json")
    assert bound.name == "last"


@pytest.mark.asyncio
async def test_deeply_nested_json_is_bounded() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    assert await errors_of(Rest, body=b'{"x": ' + deep + b"}", content_type="application/json") == BODY_ERROR


@pytest.mark.asyncio
@pytest.mark.parametrize("depth", [50, 400, 900, 2000, 100_000])
async def test_a_deep_json_tree_into_a_recursive_dataclass_binds_or_is_a_body_error(depth: int) -> None:
    raw = b'{"label": "x", "child": ' * depth + b"null" + b"}" * depth
    try:
        bound = await bind(Tree, body=raw, content_type="application/json")
    except fw.BindError as error:
        assert [e.field for e in error.errors] == ["body"]
        assert error.errors[0].message in ("invalid JSON body", "body nested too deeply")
        return
    levels = 0
    while bound is not None:
        levels, bound = levels + 1, bound.child
    assert levels == depth


@pytest.mark.asyncio
async def test_deep_but_legal_json_in_a_rest_map_is_kept() -> None:
    deep = {"x": [[[[[[{"a": 1}]]]]]]}
    assert (await bind(Rest, json=deep)).extra == deep


@pytest.mark.asyncio
async def test_a_truncated_multipart_body_is_a_bind_error_not_a_crash() -> None:
    body = b'--XX\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello'
    found = await errors_of(Rest, body=body, content_type="multipart/form-data; boundary=XX")
    assert found == [("body", "payload", "invalid multipart body")]


@pytest.mark.asyncio
async def test_a_multipart_body_without_boundary_is_a_bind_error() -> None:
    found = await errors_of(Rest, body=b"--XX\r\n", content_type="multipart/form-data")
    assert found == [("body", "payload", "invalid multipart body")]


def test_no_error_ever_leaks_a_traceback_to_the_client(client: Any) -> None:
    lenient = client.post(
        "/rest", content=b"a=%ZZ&&==", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert lenient.json()["extra"] == {"a": "%ZZ", "": "="}  # stray percent signs are kept, like browsers do
    for raw, kind in ((b"{", "application/json"), (b"\x00\xff", "multipart/form-data; boundary=a"),
                      (b"\xff", "application/x-www-form-urlencoded")):  # fmt: skip
        response = client.post("/rest", content=raw, headers={"content-type": kind})
        assert 400 <= response.status_code < 500, response.text
        assert response.headers["content-type"] == "application/problem+json"
        assert "Traceback" not in response.text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
PROFILE_KEYS = ["nickname", "age", "score", "langs", "home", "visibility", "other"]
profile_bodies = st.dictionaries(st.sampled_from(PROFILE_KEYS), json_values) | st.fixed_dictionaries(
    {
        "nickname": st.text(max_size=25),
        "age": st.integers(-10, 200),
        "score": st.floats(-1, 2, allow_nan=False),
        "langs": st.lists(st.text(max_size=3), max_size=3),
        "visibility": st.sampled_from(["public", "private", "secret", ""]),
    }
)


def run_bind(cls: type[Any], **request: Any) -> Any:
    try:
        return asyncio.run(bind(cls, **request))
    except fw.BindError as error:
        assert error.errors, "a BindError always names at least one field"
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=profile_bodies,
    trace=st.text(max_size=50).map(lambda s: s.encode("latin-1", "ignore").decode("latin-1")),
)
def test_random_json_bodies_either_bind_within_the_rules_or_raise_bind_error(
    body: dict[str, Any], trace: str
) -> None:
    headers = [("X-Trace", trace)] if trace.isprintable() and trace.strip() == trace else []
    bound = run_bind(Profile, json=body, headers=headers, path_params={"user": "u"})
    if bound is None:
        return
    assert isinstance(bound, Profile)
    assert 2 <= len(bound.nickname) <= 20
    assert 0 <= bound.age <= 150 and 0 <= bound.score <= 1
    assert bound.langs and all(isinstance(lang, str) for lang in bound.langs)
    assert bound.visibility in ("public", "private")
    assert len(bound.trace) <= 40
    assert bound.home is None or ((bound.home.sku and bound.home.qty >= 1) or bound.home.qty == 0)


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_random_bytes_in_any_media_type_raise_only_bind_errors(raw: bytes) -> None:
    for kind in ("application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"):
        bound = run_bind(Nested, body=raw, content_type=kind)
        if bound is not None:
            assert isinstance(bound, Nested)
            assert all(line.sku for line in bound.lines)
            assert all(line.qty >= 1 or line.qty == 0 for line in bound.lines)


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=60))
def test_random_query_strings_raise_only_bind_errors(query: str) -> None:
    encoded = re.sub(r"[^\x21-\x7e]", "", query)
    bound = run_bind(Scalars, query=encoded)
    if bound is not None:
        assert isinstance(bound.count, int) and -(2**63) <= bound.count < 2**63
