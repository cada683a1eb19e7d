"""Absence ends the session: reported, by silence, or by a sleep; presence never outlives the
absolute expiry, and a tick that reports nobody leaves the idle clock alone."""

from __future__ import annotations

import secrets
from contextlib import AbstractContextManager

import pytest

from auth_presence.support import MODES, Clock, Tab, signed_in

PRESENCE = {"presence": {"enabled": True, "interval": "1m", "absent_after": "30m"}}
MINUTE = 60.0
COOKIE_SECRET = secrets.token_urlsafe(32)


def signed_in_under_a_sealed_cookie(dsn: str, **session: str) -> AbstractContextManager[Tab]:
    """Signed in (``oidc_only``, presence on) with the session sealed in its cookie; ``session``
    holds ``[auth.session]`` keys."""
    return signed_in(
        "oidc_only",
        dsn,
        assurance=PRESENCE,
        env={"SESSION_KEYRING_SECRET": COOKIE_SECRET},
        session_table={"backend": "cookie"},
        **({"session": session} if session else {}),
    )


def cookie_headers(answer: object) -> list[str]:
    return list(answer.headers.get_list("set-cookie"))  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
def test_reported_absence_for_absent_after_ends_the_session(mode: str, sqlite_dsn: str, clock: Clock) -> None:
    with signed_in(mode, sqlite_dsn, assurance=PRESENCE) as tab:
        for _ in range(29):
            clock.advance(MINUTE)
            assert tab.report(active=False, gap=60).status_code == 204
        assert tab.signed_in()
        clock.advance(MINUTE)  # thirty minutes without input
        answer = tab.report(active=False, gap=60)
        assert answer.status_code == 401
        assert not tab.signed_in()
        assert tab.client.get("/private/page", follow_redirects=False).status_code in (302, 401)


@pytest.mark.parametrize("mode", MODES)
def test_a_beacon_that_stops_is_absence_noticed_at_the_next_request(
    mode: str, sqlite_dsn: str, clock: Clock
) -> None:
    with signed_in(mode, sqlite_dsn, assurance=PRESENCE) as tab:
        assert tab.report(active=True, gap=60).status_code == 204
        clock.advance(29 * MINUTE)
        assert tab.signed_in()
        clock.advance(MINUTE)
        answer = tab.client.get("/me")
        assert answer.json() == {"signed_in": False}
        cookies = cookie_headers(answer)
        assert any(c.startswith("fw_session=;") and "Max-Age=0" in c for c in cookies)
        assert any(c.startswith("fw_reconfirm=1") for c in cookies)  # the next sign-in proves again
        assert not tab.client.cookies.get("fw_session")


@pytest.mark.parametrize("mode", MODES)
def test_reports_of_input_keep_the_session_past_absent_after(
    mode: str, sqlite_dsn: str, clock: Clock
) -> None:
    with signed_in(mode, sqlite_dsn, assurance=PRESENCE) as tab:
        for _ in range(4):
            clock.advance(20 * MINUTE)
            assert tab.report(active=True, gap=60).status_code == 204
        assert tab.signed_in()  # eighty minutes, never thirty without input


def test_a_claim_of_presence_never_moves_the_absolute_expiry(sqlite_dsn: str, clock: Clock) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE, session={"ttl": "1h"}) as tab:
        for _ in range(5):
            clock.advance(11 * MINUTE)
            assert tab.report(active=True, gap=60).status_code == 204
        assert tab.signed_in()
        clock.advance(6 * MINUTE)  # 61 minutes after the sign-in, present all along
        assert tab.report(active=True, gap=60).status_code == 401
        assert not tab.signed_in()


def test_a_sealed_cookie_renewed_by_presence_never_outlives_the_absolute_expiry(
    sqlite_dsn: str, clock: Clock
) -> None:
    with signed_in_under_a_sealed_cookie(sqlite_dsn, ttl="1h") as tab:
        clock.advance(20 * MINUTE)
        answer = tab.report(active=True, gap=60)
        assert answer.status_code == 204
        [renewed] = [c for c in cookie_headers(answer) if c.startswith("fw_session=")]
        max_age = int(renewed.split("Max-Age=")[1].split(";")[0])
        assert 39 * 60 <= max_age <= 40 * 60


def test_presence_noted_in_a_sealed_cookie_session_travels_with_the_renewed_cookie(
    sqlite_dsn: str, clock: Clock
) -> None:
    with signed_in_under_a_sealed_cookie(sqlite_dsn) as tab:
        clock.advance(25 * MINUTE)
        assert tab.report(active=True, gap=60).status_code == 204
        clock.advance(25 * MINUTE)  # fifty minutes after the sign-in, twenty-five after the input
        assert tab.signed_in()
        clock.advance(5 * MINUTE)
        assert not tab.signed_in()


def test_a_tick_after_a_sleep_does_not_count_as_presence(sqlite_dsn: str, clock: Clock) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        clock.advance(20 * MINUTE)
        assert tab.report(active=True, gap=20 * MINUTE).status_code == 204  # the laptop slept
        clock.advance(10 * MINUTE)  # thirty minutes since anybody was seen
        assert not tab.signed_in()


def test_a_tick_admitting_a_gap_of_absent_after_ends_the_session_at_once(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        answer = tab.report(active=True, gap=30 * MINUTE)
        assert answer.status_code == 401 and answer.json()["code"] == "absent"
        cookies = cookie_headers(answer)
        assert any(c.startswith("fw_session=;") for c in cookies)
        assert not tab.signed_in()


def test_one_tab_reporting_nobody_cannot_end_the_session_another_tab_is_used_in(
    sqlite_dsn: str, clock: Clock
) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        for _ in range(6):  # the hidden-behind-a-window tab says "nobody", the other tab has input
            clock.advance(10 * MINUTE)
            assert tab.report(active=False, gap=60).status_code == 204
            assert tab.report(active=True, gap=60).status_code == 204
        assert tab.signed_in()


def test_a_tick_reporting_nobody_leaves_the_idle_clock_alone(sqlite_dsn: str, clock: Clock) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE, session={"idle_timeout": "10m"}) as tab:
        for _ in range(3):
            clock.advance(4 * MINUTE)
            assert tab.report(active=False, gap=60).status_code in (204, 401)
        assert not tab.signed_in()  # twelve minutes of ticks without input: idle


def test_a_tick_reporting_input_is_activity_for_the_idle_clock(sqlite_dsn: str, clock: Clock) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE, session={"idle_timeout": "10m"}) as tab:
        for _ in range(3):
            clock.advance(4 * MINUTE)
            assert tab.report(active=True, gap=60).status_code == 204
        clock.advance(9 * MINUTE)
        assert tab.signed_in()


def test_without_presence_silence_ends_nothing(sqlite_dsn: str, clock: Clock) -> None:
    with signed_in("oidc_only", sqlite_dsn) as tab:
        clock.advance(120 * MINUTE)
        assert tab.signed_in()


def test_a_logout_never_sends_back_a_sealed_session_cookie_the_same_request_renewed(
    sqlite_dsn: str, clock: Clock
) -> None:
    with signed_in_under_a_sealed_cookie(sqlite_dsn, idle_timeout="10m") as tab:
        clock.advance(2 * MINUTE)  # the logout request itself renews the sealed session (activity)
        out = tab.logout()
        sessions = [c for c in cookie_headers(out) if c.startswith("fw_session=")]
        assert sessions and all("Max-Age=0" in c for c in sessions)
        assert not tab.signed_in()
