"""The JWS JSON reader: its msgspec fast path accepts and refuses exactly what the strict reader does."""

from __future__ import annotations

import functools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fw.auth.tokens.errors import TokenRejected
from fw.auth.tokens.jws import _JSON, JwsVerifier, _strict_json, claims_source, decode_claims
from fw.testing.issuer import LocalIssuer

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


def _outcome(read: Any, raw: bytes) -> tuple[str, Any]:
    try:
        return "value", read(raw)
    except (ValueError, RecursionError, TokenRejected):
        return "refused", None


def _stdlib(raw: bytes) -> Any:
    return _JSON.decode(raw.decode("utf-8"))


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    # NaN is never equal to itself; compare the canonical spelling instead.
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, compact=st.booleans(), ascii_only=st.booleans())
def test_any_json_document_reads_as_the_strict_reader_reads_it(
    value: Any, compact: bool, ascii_only: bool
) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    raw = json.dumps(value, separators=separators, ensure_ascii=ascii_only).encode()
    assert _same(_outcome(_strict_json, raw), _outcome(_stdlib, raw))


@settings(max_examples=200, deadline=None)
@given(members=st.dictionaries(st.text(min_size=1, max_size=4), st.integers(), min_size=1, max_size=5))
def test_a_duplicated_member_is_refused_on_either_path(members: dict[str, int]) -> None:
    name = next(iter(members))
    raw = json.dumps(members, separators=(",", ":")).encode()[:-1] + b"," + json.dumps(name).encode() + b":1}"
    assert _outcome(_strict_json, raw)[0] == "refused"


@given(raw=st.binary(max_size=40))
def test_arbitrary_bytes_read_as_the_strict_reader_reads_them(raw: bytes) -> None:
    assert _same(_outcome(_strict_json, raw), _outcome(_stdlib, raw))


def test_constants_and_nested_duplicates_are_refused() -> None:
    for raw in (b'{"a":NaN}', b'{"a":Infinity}', b'{"a":{"b":1,"b":2}}', b'[{"x":1,"x":1}]'):
        assert _outcome(_strict_json, raw)[0] == "refused"


def test_a_remembered_header_is_handed_to_each_token_as_its_own_copy() -> None:
    issuer = LocalIssuer()
    verifier = JwsVerifier(["RS256"])
    first = verifier.parse(issuer.mint("a"))
    first.header["alg"] = "none"
    second = verifier.parse(issuer.mint("b"))
    assert second.header["alg"] == "RS256"
    assert second.header is not first.header


def _change_every_container(value: Any) -> None:
    """Change, in place, every list and object inside ``value``."""
    if isinstance(value, dict):
        for inner in list(value.values()):
            _change_every_container(inner)
        value["changed"] = True
    elif isinstance(value, list):
        for inner in value:
            _change_every_container(inner)
        value.append("changed")


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, compact=st.booleans(), ascii_only=st.booleans())
def test_the_claims_source_kept_for_a_payload_reads_it_as_decode_claims_does_and_shares_nothing(
    value: Any, compact: bool, ascii_only: bool
) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    raw = json.dumps({"claim": value, "sub": "a"}, separators=separators, ensure_ascii=ascii_only).encode()
    source = claims_source(raw)
    first = _outcome(lambda _raw: source(), raw)
    assert _same(first, _outcome(decode_claims, raw))
    if first[0] == "value":
        _change_every_container(first[1])
        assert _same(_outcome(lambda _raw: source(), raw), _outcome(decode_claims, raw))


def test_a_payload_of_scalars_is_copied_one_with_containers_decoded_and_any_other_read_strictly() -> None:
    scalars = claims_source(b'{"sub":"a","exp":1,"admin":false,"x":null,"f":1.5}')
    assert not isinstance(scalars, functools.partial)
    assert scalars() == {"sub": "a", "exp": 1, "admin": False, "x": None, "f": 1.5}
    assert scalars() is not scalars()
    containers = claims_source(b'{"sub":"a","aud":["api"]}')
    assert isinstance(containers, functools.partial) and containers.func is not decode_claims
    for raw in (b'{"sub": "a"}', b'{"a":1,"a":2}', b'{"a":NaN}', b"[1]", b"not json"):
        strict = claims_source(raw)
        assert isinstance(strict, functools.partial) and strict.func is decode_claims
