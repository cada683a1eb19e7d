"""Validation rules, enums and defaults, with the exact messages clients see."""

from __future__ import annotations

from typing import Any

import pytest

import fw

from .bindapp.models import Defaults, Rules
from .support import bind, errors_of

pytestmark = pytest.mark.asyncio

VALID: dict[str, Any] = {
    "req": "x",
    "reqInt": 0,
    "low": 1,
    "high": 2.5,
    "short": "abc",
    "long": "abcde",
    "exact": "abcd",
    "code": "abc,123",
    "email": "a.b@example.org",
    "uid": "123e4567-e89b-12d3-a456-426614174000",
    "day": "2024-02-29",
    "clock": "23:59:59",
    "stamp": "2024-01-02T03:04:05.123+01:00",
    "reqEmail": "x@example.com",
    "reqList": ["a"],
}
HEADERS = [("X-Need", "yes")]


async def rejected(**changes: Any) -> list[tuple[str, str, str]]:
    return await errors_of(Rules, json={**VALID, **changes}, headers=HEADERS)


async def test_a_request_meeting_every_rule_binds() -> None:
    bound = await bind(Rules, json=VALID, headers=HEADERS)
    assert bound.code == "abc,123" and bound.req_list == ["a"]


async def test_every_rejected_field_is_reported_in_one_error() -> None:
    found = await errors_of(Rules, json={"low": 0, "short": "ab", "email": "nope"})
    assert found == [
        ("req", "input", "required"),
        ("reqInt", "input", "required"),
        ("low", "payload", "must be >= 1"),
        ("short", "payload", "length must be >= 3"),
        ("email", "payload", "must be a valid email"),
        ("reqEmail", "input", "required"),
        ("reqList", "payload", "required"),
        ("X-Need", "header", "required"),
    ]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"req": ""}, ("req", "payload", "required")),
        ({"high": 2.51}, ("high", "payload", "must be <= 2.5")),
        ({"low": -5}, ("low", "payload", "must be >= 1")),
        ({"long": "abcdef"}, ("long", "payload", "length must be <= 5")),
        ({"exact": "abc"}, ("exact", "payload", "length must be 4")),
        ({"exact": "abcde"}, ("exact", "payload", "length must be 4")),
        ({"code": "abc123"}, ("code", "payload", "must match pattern")),
        ({"email": "a@b"}, ("email", "payload", "must be a valid email")),
        ({"uid": "123e4567e89b12d3a456426614174000"}, ("uid", "payload", "must be a valid uuid")),
        ({"day": "2023-02-29"}, ("day", "payload", "must be a valid date")),
        ({"day": "20240101"}, ("day", "payload", "must be a valid date")),
        ({"clock": "24:00:00"}, ("clock", "payload", "must be a valid time")),
        ({"clock": "1:02:03"}, ("clock", "payload", "must be a valid time")),
        ({"stamp": "2024-01-02 03:04:05Z"}, ("stamp", "payload", "must be a valid datetime")),
        ({"stamp": "2024-01-02T03:04:05"}, ("stamp", "payload", "must be a valid datetime")),
        ({"reqEmail": "bad"}, ("reqEmail", "payload", "must be a valid email")),
        ({"reqEmail": ""}, ("reqEmail", "payload", "required")),
        ({"reqList": []}, ("reqList", "payload", "required")),
    ],
)
async def test_each_rule_rejects_with_its_message(
    changes: dict[str, Any], expected: tuple[str, str, str]
) -> None:
    assert await rejected(**changes) == [expected]


async def test_required_accepts_a_zero_number_that_was_sent() -> None:
    assert (await bind(Rules, json={**VALID, "reqInt": 0}, headers=HEADERS)).req_int == 0


async def test_format_rules_skip_an_empty_value_unless_required() -> None:
    bound = await bind(Rules, json={**VALID, "email": "", "uid": "", "day": "", "clock": "", "stamp": ""},
                       headers=HEADERS)  # fmt: skip
    assert bound.email == ""
    assert await rejected(reqEmail="") == [("reqEmail", "payload", "required")]


async def test_rules_other_than_required_skip_an_absent_value() -> None:
    body = {k: v for k, v in VALID.items() if k not in ("low", "short", "exact", "code", "email")}
    bound = await bind(Rules, json=body, headers=HEADERS)
    assert bound.low == 0 and bound.short == ""


async def test_min_and_max_compare_as_numbers_from_query_text() -> None:
    body = {k: v for k, v in VALID.items() if k not in ("low", "high")}
    found = await errors_of(Rules, query="low=0&high=3", json=body, headers=HEADERS)
    assert found == [("low", "query", "must be >= 1"), ("high", "query", "must be <= 2.5")]


async def test_an_absent_value_takes_the_default_after_validation() -> None:
    bound = await bind(Defaults)
    assert (bound.role, bound.level, bound.empty, bound.on, bound.ratio, bound.maybe) == (
        "member",
        -1,
        "",
        True,
        0.25,
        7,
    )


async def test_the_sentinel_default_passes_but_an_explicit_sentinel_is_rejected() -> None:
    assert (await bind(Defaults)).level == -1
    assert await errors_of(Defaults, json={"level": -1}) == [("level", "payload", "must be >= 1")]
    assert (await bind(Defaults, json={"level": 3})).level == 3


async def test_a_default_is_never_trimmed() -> None:
    assert (await bind(Defaults)).spaced == "  padded "


async def test_a_sent_value_wins_over_the_default_even_when_empty() -> None:
    bound = await bind(Defaults, json={"role": "admin", "spaced": "", "on": False, "maybe": 0})
    assert (bound.role, bound.spaced, bound.on, bound.maybe) == ("admin", "", False, 0)


async def test_enum_values_are_trimmed_and_checked_with_the_exact_message() -> None:
    assert (await bind(Defaults, query="role=guest")).role == "guest"
    assert await errors_of(Defaults, query="role=root") == [
        ("role", "query", "must be one of: admin, member, guest")
    ]


async def test_an_absent_optional_enum_skips_the_check_and_the_default_need_not_be_listed() -> None:
    bound = await bind(Defaults)
    assert bound.outside == "z"
    assert bound.num == 0
    assert await errors_of(Defaults, json={"outside": "z"}) == [
        ("outside", "payload", "must be one of: a, b")
    ]


async def test_numeric_enums_compare_parsed_values() -> None:
    assert (await bind(Defaults, query="num=2")).num == 2
    assert (await bind(Defaults, query="num=%2B2")).num == 2
    assert await errors_of(Defaults, query="num=4") == [("num", "query", "must be one of: 1, 2, 3")]


async def test_the_error_is_a_400_problem_with_every_field(client: Any) -> None:
    response = client.post("/rules", json={"low": 0})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    document = response.json()
    assert document["code"] == "validation_failed" and document["title"] == "Validation failed"
    assert {"field": "low", "location": "payload", "message": "must be >= 1"} in document["errors"]
    assert len(document["errors"]) == 6


async def test_a_hand_built_validation_error_looks_the_same() -> None:
    built = fw.validation(fw.field("low", "payload", "must be >= 1"))
    try:
        await bind(Rules, json={**VALID, "low": 0}, headers=HEADERS)
    except fw.BindError as raised:
        assert raised.to_dict() == built.to_dict()
    else:
        raise AssertionError("not rejected")


async def test_bad_request_and_write_problem_render_the_same_document_as_a_raised_bind_error() -> None:
    import json

    built = fw.validation(fw.field("low", "payload", "must be >= 1"), fw.field("x", "query", "required"))
    assert fw.bad_request(built) is built
    response = fw.write_problem(None, fw.bad_request(built))
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert json.loads(response.body) == {
        "type": "about:blank", "title": "Validation failed", "status": 400, "detail": "Validation failed",
        "code": "validation_failed",
        "errors": [{"field": "low", "location": "payload", "message": "must be >= 1"},
                   {"field": "x", "location": "query", "message": "required"}],
    }  # fmt: skip


async def test_bad_request_wraps_any_other_error_as_a_plain_400_and_write_problem_hides_internals() -> None:
    import json

    plain = fw.write_problem(None, fw.bad_request("name is taken"))
    assert plain.status_code == 400
    assert json.loads(plain.body)["detail"] == "name is taken"
    assert "errors" not in json.loads(plain.body)
    hidden = fw.write_problem(None, RuntimeError("db password is hunter2"))
    assert hidden.status_code == 500
    assert b"hunter2" not in hidden.body and b"RuntimeError" not in hidden.body
