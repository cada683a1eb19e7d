"""The decoded JSON path (generated msgspec Structs, then rule checks) only ever shortcuts the full path.

For any body, binding with the decoders enabled must give exactly what the generic full path
alone gives: the same accepted value (same types too) or the same complete list of field errors.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fw

from .bindapp.models import Defaults, Lists, Nested, Profile, Rules, Scalars, Sources, Wide
from .support import bind


def generated() -> Any:
    """The generated module, imported only after the session fixture has regenerated it."""
    return importlib.import_module(f"{__package__}.bindapp._fw_binders")


def decoders() -> dict[str, Callable[[bytes], Any]]:
    module = generated()
    return {name: value for name, value in vars(module).items() if re.fullmatch(r"_D\d+", name)}


REQUEST: dict[str, Any] = {
    "headers": [("X-Need", "yes"), ("X-Token", "t"), ("Cookie", "sid=s1"), ("X-Trace", "tr")],
    "path_params": {"id": "7", "user": "ada"},
}
LINE = {"sku": "A1", "qty": 2}
SEEDS: dict[type, dict[str, Any]] = {
    Wide: {
        "name": "Ada", "code": "ab1", "exact": "xyz", "email": "ada@example.com", "day": "2026-02-28",
        "count": -5, "big": 2**63 - 1, "ratio": 2.5, "free": 1, "flag": True, "level": "high",
        "limit": 3, "maybe": 0, "note": "n", "tags": ["a"], "nums": [1, -2], "scores": {"a": 0.5},
        "head": LINE, "lines": [LINE, {"sku": "B"}], "byName": {"x": LINE}, "optLine": LINE,
        "grid": [[1], []],
    },
    Nested: {
        "lines": [LINE], "byName": {"a": LINE}, "matrix": [[1, 2]], "counts": {"a": 1}, "inner": LINE,
        "deep": {"k": [LINE]}, "head": LINE,
    },
    Rules: {
        "req": "r", "reqInt": 3, "low": 1, "high": 2.5, "short": "abc", "long": "abcde", "exact": "abcd",
        "code": "ab,12", "email": "", "uid": "6f1c2a52-3f0e-4a86-9d3c-2b1d0c9e8f7a", "day": "2026-01-31",
        "clock": "23:59:59", "stamp": "2026-01-31T23:59:59Z", "reqEmail": "a@b.co", "reqList": ["x"],
    },
    Profile: {"nickname": "ada", "age": 150, "score": 0, "langs": ["en"], "home": None},
    Lists: {"bodyTags": ["a", "b"]},
    Sources: {"name": "n", "pOnly": "p", "firstName": "f", "alias": "a"},
    Scalars: {"text": "t", "count": 3, "ratio": 0.5, "flag": False, "blob": "aGk=", "maybe": None,
              "note": "n"},
    Defaults: {"role": "admin", "level": 2, "empty": "", "spaced": "x", "on": False, "ratio": 1.5,
               "outside": "a", "num": 2, "maybe": 3},
}  # fmt: skip
KEYS = sorted({key for seed in SEEDS.values() for key in seed} | {"sku", "qty", "other"})
STRINGS = ["", "a", "ab", "abc", "xyz", "Ada", "ab1", "abc1", "ab,12", "high", "low", "public", "A1",
           "ada@example.com", "not-an-email", "2026-02-28", "2026-02-30", "23:59:59", "24:00:00",
           "2026-01-31T23:59:59Z", "2026-01-31T23:59:59", "6f1c2a52-3f0e-4a86-9d3c-2b1d0c9e8f7a",
           "ab1\n", "é" * 3, "😀😀😀", "x" * 9, "aGk=", "aGk", "member", "guest", "z"]  # fmt: skip
NUMBERS = [0, 1, -1, 5, -5, 6, -6, 150, 151, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**1023, -(2**1023),
           2**1024, 0.0, -0.0, 0.5, 1.0, 2.5, 2.5000001, -1.5, -1.5000001, 1e308, 15.0]  # fmt: skip
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(NUMBERS),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(STRINGS),
    st.text(max_size=6),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
        | st.fixed_dictionaries({"sku": inner}, optional={"qty": inner})
    ),
    max_leaves=8,
)


def render(pairs: list[tuple[str, Any]]) -> bytes:
    """A JSON object from key/value pairs, so a body can repeat a key."""
    return ("{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in pairs) + "}").encode()


@st.composite
def bodies(draw: st.DrawFn) -> tuple[type, bytes]:
    """A seed body of some type with a few keys replaced, dropped, repeated or added."""
    cls = draw(st.sampled_from(sorted(SEEDS, key=lambda c: c.__name__)))
    pairs = list(SEEDS[cls].items())
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["replace", "drop", "repeat", "add"]))
        if action == "add" or not pairs:
            pairs.append((draw(st.sampled_from(KEYS)), draw(VALUES)))
            continue
        index = draw(st.integers(0, len(pairs) - 1))
        if action == "replace":
            pairs[index] = (pairs[index][0], draw(VALUES))
        elif action == "drop":
            del pairs[index]
        else:
            pairs.append((pairs[index][0], draw(VALUES)))
    return cls, render(pairs)


def _refuse(raw: bytes) -> Any:
    raise msgspec.ValidationError("fast path disabled")


@contextmanager
def full_path_only() -> Iterator[None]:
    module, saved = generated(), decoders()
    try:
        for name in saved:
            setattr(module, name, _refuse)
        yield
    finally:
        for name, decoder in saved.items():
            setattr(module, name, decoder)


@contextmanager
def counting_decoders(counts: dict[str, int]) -> Iterator[None]:
    """Count how often each decoder accepted a body."""
    module, saved = generated(), decoders()

    def counted(name: str, decode: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
        def run(raw: bytes) -> Any:
            value = decode(raw)
            counts[name] = counts.get(name, 0) + 1
            return value

        return run

    try:
        for name, decode in saved.items():
            setattr(module, name, counted(name, decode))
        yield
    finally:
        for name, decoder in saved.items():
            setattr(module, name, decoder)


async def outcome(cls: type, raw: bytes, query: str = "") -> tuple[str, str]:
    """``repr`` keeps types apart (``1`` vs ``1.0``), which ``==`` on dataclasses would not."""
    try:
        value = await bind(cls, body=raw, content_type="application/json", query=query, **REQUEST)
    except fw.BindError as error:
        return "rejected", repr([(e.field, e.location, e.message) for e in error.errors])
    return "accepted", repr(value)


def both_paths(cls: type, raw: bytes, query: str = "") -> tuple[tuple[str, str], tuple[str, str]]:
    fast = asyncio.run(outcome(cls, raw, query))
    with full_path_only():
        full = asyncio.run(outcome(cls, raw, query))
    return fast, full


@pytest.mark.parametrize("cls", sorted(SEEDS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_valid_bodies_take_the_fast_path_and_bind_what_the_full_path_binds(cls: type) -> None:
    counts: dict[str, int] = {}
    raw = render(list(SEEDS[cls].items()))
    with counting_decoders(counts):
        fast = asyncio.run(outcome(cls, raw))
    assert sum(counts.values()) == 1, "the seed body should be accepted by the fast path"
    with full_path_only():
        full = asyncio.run(outcome(cls, raw))
    assert fast == full
    assert fast[0] == "accepted"


#: Every value of the right type, but breaking a rule: each must be reported from the decoded path.
RULE_BREAKERS: dict[type, dict[str, Any]] = {
    Wide: {"name": "A", "code": "AB", "exact": "x", "email": "nope", "day": "2026-02-30", "count": 6,
           "ratio": 2.6, "level": "mid", "limit": 0, "tags": [], "head": {"qty": 0},
           "lines": [{"sku": "", "qty": 1}, {"qty": -1}], "byName": {"k": {}}},
    Rules: {"req": "", "low": 0, "high": 3.0, "short": "ab", "long": "abcdef", "exact": "abc", "code": "x",
            "email": "a@", "uid": "123", "day": "2026-13-01", "clock": "25:00:00", "stamp": "2026-01-01",
            "reqList": []},
    Defaults: {"role": "owner", "level": 0, "outside": "c", "num": 4},
    Scalars: {"blob": "!!"},
}  # fmt: skip


@pytest.mark.parametrize("cls", sorted(RULE_BREAKERS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_a_well_typed_body_breaking_every_rule_is_reported_from_the_decoded_path(cls: type) -> None:
    counts: dict[str, int] = {}
    raw = render(list({**SEEDS[cls], **RULE_BREAKERS[cls]}.items()))
    with counting_decoders(counts):
        decoded = asyncio.run(outcome(cls, raw))
    assert sum(counts.values()) == 1, "a well-typed body should be decoded"
    with full_path_only():
        full = asyncio.run(outcome(cls, raw))
    assert decoded == full
    assert decoded[0] == "rejected"
    reported = {name for name, _, _ in ast.literal_eval(decoded[1])}
    for key in RULE_BREAKERS[cls]:
        assert any(name == key or name.startswith((f"{key}.", f"{key}[")) for name in reported), key


def test_a_query_value_for_an_input_field_bypasses_the_fast_path() -> None:
    raw = render(list(SEEDS[Wide].items()))
    counts: dict[str, int] = {}
    with counting_decoders(counts):
        fast = asyncio.run(outcome(Wide, raw, query="name=Zed"))
    assert counts == {}
    assert fast[0] == "accepted" and "name='Zed'" in fast[1]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies())
def test_the_fast_path_never_changes_an_outcome(case: tuple[type, bytes]) -> None:
    cls, raw = case
    fast, full = both_paths(cls, raw)
    assert fast == full


CLASSES = st.sampled_from(sorted(SEEDS, key=lambda c: c.__name__))


@settings(max_examples=200, deadline=None)
@given(CLASSES, st.dictionaries(st.sampled_from(KEYS), VALUES))
def test_random_objects_bind_the_same_with_or_without_the_fast_path(cls: type, body: dict[str, Any]) -> None:
    fast, full = both_paths(cls, json.dumps(body).encode())
    assert fast == full


LEAF_VALUES: list[Any] = [None, True, False, [], {}, [""], {"a": 1}, *NUMBERS, *STRINGS]


def single_changes(seed: dict[str, Any]) -> Iterator[list[tuple[str, Any]]]:
    """The seed with one key dropped, or one value (or one value inside a nested object) replaced."""
    pairs = list(seed.items())
    for index, (key, value) in enumerate(pairs):
        yield pairs[:index] + pairs[index + 1 :]
        variants: list[Any] = list(LEAF_VALUES)
        if isinstance(value, dict) and "sku" in value:
            variants += [{**value, "sku": leaf} for leaf in LEAF_VALUES]
            variants += [{**value, "qty": leaf} for leaf in LEAF_VALUES]
            variants += [{"qty": 1}, {"sku": "A1"}]
        if isinstance(value, list):
            variants += [[leaf] for leaf in LEAF_VALUES] + [[*value, leaf] for leaf in LEAF_VALUES]
        for variant in variants:
            yield [*pairs[:index], (key, variant), *pairs[index + 1 :]]


@pytest.mark.parametrize("cls", sorted(SEEDS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_every_single_change_to_a_valid_body_binds_the_same_on_both_paths(cls: type) -> None:
    """Boundary values for every field, one at a time: where a fast-path bound could be off by one."""

    async def run(raws: list[bytes]) -> list[tuple[str, str]]:
        return [await outcome(cls, raw) for raw in raws]

    raws = [render(pairs) for pairs in single_changes(SEEDS[cls])]
    fast = asyncio.run(run(raws))
    with full_path_only():
        full = asyncio.run(run(raws))
    mismatches = [(raw, a, b) for raw, a, b in zip(raws, fast, full, strict=True) if a != b]
    assert mismatches == []
