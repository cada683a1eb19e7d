from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fw.configuration.duration import DurationError, format_duration, parse_duration

GO_LIMIT = timedelta(microseconds=(2**63 - 1) // 1000)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("250ms", timedelta(milliseconds=250)),
        ("-1.5h", -timedelta(hours=1.5)),
        ("+2s", timedelta(seconds=2)),
        ("0s", timedelta(0)),
        ("1us", timedelta(microseconds=1)),
        ("1µs", timedelta(microseconds=1)),
        ("1500ns", timedelta(microseconds=1)),
        (".5s", timedelta(milliseconds=500)),
        ("2h45m30.5s", timedelta(hours=2, minutes=45, seconds=30.5)),
    ],
)
def test_go_duration_notation_parses(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "30",
        "0",
        "1.5",
        "-5",
        "",
        "-",
        "s",
        "1x",
        "1h 30m",
        "h1",
        "1.s.",
        "one second",
        "٣s",
        "\uff11s",  # a full-width digit one
        "1S",
        " 1s",
        "1s ",
        "1..5s",
        "9223372036854775808ns",
        "2562048h",
    ],
)
def test_bare_numbers_and_garbage_are_not_durations(text: str) -> None:
    with pytest.raises(DurationError):
        parse_duration(text)


def test_a_bare_number_error_suggests_a_unit() -> None:
    with pytest.raises(DurationError, match="unit is required"):
        parse_duration("30")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (timedelta(0), "0s"),
        (timedelta(hours=1, minutes=30), "1h30m0s"),
        (timedelta(milliseconds=250), "250ms"),
        (timedelta(microseconds=1500), "1.5ms"),
        (timedelta(seconds=90), "1m30s"),
        (-timedelta(seconds=1.5), "-1.5s"),
        (timedelta(microseconds=7), "7µs"),
    ],
)
def test_durations_print_as_go_does(value: timedelta, text: str) -> None:
    assert format_duration(value) == text


@given(st.timedeltas(min_value=-GO_LIMIT, max_value=GO_LIMIT))
def test_every_duration_survives_a_print_and_parse_round_trip(value: timedelta) -> None:
    assert parse_duration(format_duration(value)) == value


@given(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False, min_value=0)))
def test_no_bare_number_is_ever_a_duration(number: float) -> None:
    with pytest.raises(DurationError):
        parse_duration(str(number))
