"""Presence: whether someone is at the keyboard, judged from one bit a page reports per tick.

A page loads the presence script; each ``interval`` it reports whether any input happened since
its previous tick (``active``) and how long that tick really took (``gap``, seconds). The
session remembers when someone was last reported present (``present_at``; the sign-in counts).
The rules, from the spec's "Sessions":

- reported absence is acted on: nobody reported present for ``absent_after`` ends the session;
- a beacon that stops is absence: the silence itself leaves ``present_at`` behind, so the next
  request of that browser finds the session over, whatever it asks for;
- a gap far beyond the interval (more than :data:`SLEEP_FACTOR` intervals: the timer could not
  run, the machine slept) is absence: that tick's claim counts for nothing, and a gap of
  ``absent_after`` or more ends the session at once;
- a claim of presence never moves the absolute expiry (``auth.session.ttl`` from the sign-in).

Several tabs report for one session: any of them seeing input keeps the session, none can end
it by reporting no input while another is in use. Nothing here knows HTTP or the App.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from fw.auth.settings import AssurancePresence
from fw.configuration.duration import format_duration
from fw.errors import StartupError

TABLE = "auth.assurance.presence"
#: The session record's field: when someone was last reported at the keyboard (UNIX time).
PRESENT_AT = "present_at"
#: A tick this many intervals late means the page's timer could not run: the machine slept.
SLEEP_FACTOR = 3


class Verdict(Enum):
    """What one report does to the session."""

    #: Someone was there: note it.
    PRESENT = "present"
    #: Nothing changes (no input, a tick after a sleep, or presence noted a moment ago).
    UNCHANGED = "unchanged"
    #: The page admits it was away for ``absent_after`` or longer: the session ends.
    ABSENT = "absent"


# Report and PresenceRules are two-field records like fw.auth.caller.Caller: alike in shape only,
# with nothing in common to share.
@dataclass(frozen=True, slots=True)
class Report:
    """One tick of the presence script."""

    active: bool
    gap: float


@dataclass(frozen=True, slots=True)
class PresenceRules:
    """The rules for one App's ``interval`` and ``absent_after``, in seconds."""

    interval: float
    absent_after: float

    @classmethod
    def from_settings(cls, presence: AssurancePresence) -> PresenceRules:
        return cls(presence.interval.total_seconds(), presence.absent_after.total_seconds())

    @staticmethod
    def last_present(record: Mapping[str, Any]) -> float:
        """When someone was last reported present; the sign-in (the session's start) counts."""
        for name in (PRESENT_AT, "created_at"):
            value = record.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
        return 0.0

    def absent(self, record: Mapping[str, Any], now: float) -> bool:
        """Nobody reported present for ``absent_after``: the session is over."""
        return now - self.last_present(record) >= self.absent_after

    def slept(self, gap: float) -> bool:
        """The tick came far later than the interval: the page's timer did not run meanwhile."""
        return gap > SLEEP_FACTOR * self.interval

    def judge(self, report: Report, record: Mapping[str, Any], now: float) -> Verdict:
        if report.gap >= self.absent_after:
            return Verdict.ABSENT
        if not report.active or self.slept(report.gap):
            return Verdict.UNCHANGED
        # Several tabs tick for one session: one write per half interval is precise enough.
        if now - self.last_present(record) < self.interval / 2:
            return Verdict.UNCHANGED
        return Verdict.PRESENT


def check_presence(presence: AssurancePresence) -> None:
    """``[auth.assurance.presence]``: a positive interval, and absence longer than one interval."""
    if not presence.enabled:
        return
    interval, absent_after = presence.interval, presence.absent_after
    if interval.total_seconds() <= 0:
        raise StartupError(
            f"{TABLE}.interval", format_duration(interval), "must be a positive duration such as 1m"
        )
    if absent_after <= interval:
        raise StartupError(
            f"{TABLE}.absent_after",
            format_duration(absent_after),
            f"must be more than interval ({format_duration(interval)}): a page reports once per "
            "interval, so a shorter absence would end sessions of people who are there; such as 30m",
        )
