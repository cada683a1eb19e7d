"""The presence rules on their own: what one tick does, when silence is absence, which settings start."""

from __future__ import annotations

from datetime import timedelta

import pytest

from fw.auth.assurance.presence import (
    PRESENT_AT,
    SLEEP_FACTOR,
    PresenceRules,
    Report,
    Verdict,
    check_presence,
)
from fw.auth.settings import AssurancePresence
from fw.errors import StartupError

RULES = PresenceRules(interval=60, absent_after=1800)
START = 1_000_000.0
RECORD = {"created_at": START, "last_seen": START}


def test_a_report_of_input_notes_presence() -> None:
    assert RULES.judge(Report(active=True, gap=60), RECORD, START + 60) is Verdict.PRESENT


def test_a_report_without_input_changes_nothing() -> None:
    assert RULES.judge(Report(active=False, gap=60), RECORD, START + 60) is Verdict.UNCHANGED


def test_a_tick_far_beyond_the_interval_counts_for_nothing_even_when_it_claims_input() -> None:
    slept = SLEEP_FACTOR * 60 + 1
    assert RULES.judge(Report(active=True, gap=slept), RECORD, START + slept) is Verdict.UNCHANGED
    on_time = SLEEP_FACTOR * 60
    assert RULES.judge(Report(active=True, gap=on_time), RECORD, START + on_time) is Verdict.PRESENT


def test_a_gap_of_absent_after_or_more_ends_the_session_whatever_the_tick_claims() -> None:
    for active in (True, False):
        assert RULES.judge(Report(active, gap=1800), RECORD, START + 1800) is Verdict.ABSENT
    assert RULES.judge(Report(True, gap=1799), RECORD, START + 1799) is Verdict.UNCHANGED  # slept


def test_presence_is_noted_at_most_once_per_half_interval() -> None:
    record = {**RECORD, PRESENT_AT: START + 100}
    assert RULES.judge(Report(True, gap=60), record, START + 129) is Verdict.UNCHANGED
    assert RULES.judge(Report(True, gap=60), record, START + 130) is Verdict.PRESENT


def test_the_sign_in_counts_as_presence_until_a_report_says_more() -> None:
    assert RULES.last_present(RECORD) == START
    assert not RULES.absent(RECORD, START + 1799)
    assert RULES.absent(RECORD, START + 1800)


def test_silence_for_absent_after_since_the_last_presence_is_absence() -> None:
    record = {**RECORD, PRESENT_AT: START + 1000}
    assert not RULES.absent(record, START + 2799)
    assert RULES.absent(record, START + 2800)


def presence(enabled: bool = True, interval: str = "1m", absent_after: str = "30m") -> AssurancePresence:
    from fw.configuration.duration import parse_duration

    return AssurancePresence(enabled, parse_duration(interval), parse_duration(absent_after))


def test_the_defaults_start() -> None:
    check_presence(presence())


@pytest.mark.parametrize("absent_after", ["1m", "30s"])
def test_absent_after_must_be_more_than_the_interval(absent_after: str) -> None:
    with pytest.raises(StartupError) as caught:
        check_presence(presence(absent_after=absent_after))
    assert caught.value.key == "auth.assurance.presence.absent_after"
    assert "more than interval (1m0s)" in str(caught.value)


def test_the_interval_must_be_positive() -> None:
    with pytest.raises(StartupError) as caught:
        check_presence(presence(interval="0s"))
    assert caught.value.key == "auth.assurance.presence.interval"


def test_presence_turned_off_is_not_judged() -> None:
    check_presence(presence(enabled=False, interval="0s", absent_after="0s"))


def test_rules_read_their_settings_in_seconds() -> None:
    rules = PresenceRules.from_settings(AssurancePresence(True, timedelta(seconds=2), timedelta(seconds=7)))
    assert (rules.interval, rules.absent_after) == (2.0, 7.0)
