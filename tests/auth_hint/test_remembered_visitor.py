"""The remembered visitor in every browser mode: written at session end, read with
``fw.auth.remembered``, dropped by ``POST {logout_path}/forget``, ignored when forged or off."""

from __future__ import annotations

import httpx2
import pytest
from auth_presence.support import FORGET, MODES, Clock, Tab, signed_in

HINT = {"hint": {"enabled": True}}
HOUR = 3600.0


def set_cookies(answer: object) -> list[str]:
    return list(answer.headers.get_list("set-cookie"))  # type: ignore[attr-defined]


def taken_note(tab: Tab) -> str:
    """The note the browser holds, taken out of its cookie jar (to send by hand, as it is or forged)."""
    value = tab.client.cookies["fw_visitor"]
    tab.client.cookies.delete("fw_visitor")
    return value


def visitor_with(tab: Tab, note: str) -> httpx2.Response:
    """``GET /visitor`` carrying exactly ``note``, whatever the client's jar thinks of its expiry."""
    return tab.client.get("/visitor", headers={"cookie": f"fw_visitor={note}"})


@pytest.mark.parametrize("mode", MODES)
def test_a_logout_leaves_the_issuer_and_the_masked_identifier_behind(mode: str, sqlite_dsn: str) -> None:
    with signed_in(mode, sqlite_dsn, assurance=HINT) as tab:
        assert tab.visitor() is None  # nobody has left this browser yet
        out = tab.logout()
        assert out.status_code == 303
        note = [c for c in set_cookies(out) if c.startswith("fw_visitor=")]
        assert len(note) == 1 and "HttpOnly" in note[0] and "Max-Age=2592000" in note[0]
        assert not tab.signed_in()
        assert tab.visitor() == {"issuer": tab.issuer, "masked_identifier": tab.masked}


@pytest.mark.parametrize("mode", MODES)
def test_forget_drops_the_note_and_goes_home(mode: str, sqlite_dsn: str) -> None:
    with signed_in(mode, sqlite_dsn, assurance=HINT) as tab:
        tab.logout()
        answer = tab.post(FORGET)
        assert answer.status_code == 303 and answer.headers["location"] == "/"
        assert any(c.startswith("fw_visitor=;") and "Max-Age=0" in c for c in set_cookies(answer))
        assert tab.visitor() is None


def test_forget_from_another_origin_is_refused(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=HINT) as tab:
        tab.logout()
        answer = tab.post(FORGET, headers={"origin": "https://evil.example"})
        assert answer.status_code == 403
        assert tab.visitor() == {"issuer": tab.issuer, "masked_identifier": tab.masked}


def test_forget_works_without_a_session_and_only_by_post(sqlite_dsn: str) -> None:
    protected = {"include": ["/"], "unauthenticated": "unauthorized"}
    with signed_in("oidc_only", sqlite_dsn, assurance=HINT, sign_in=False, protection=protected) as tab:
        assert tab.post(FORGET).status_code == 303
        assert tab.client.get(FORGET).status_code == 405


def test_the_note_survives_the_next_sign_in_and_names_whoever_left_last(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=HINT) as tab:
        tab.logout()
        tab.client.login("bob")
        assert tab.me()["signed_in"]
        tab.logout()
        assert tab.visitor() == {"issuer": tab.issuer, "masked_identifier": "b•••••@example.test"}


def test_a_logout_without_a_session_leaves_no_note(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=HINT, sign_in=False) as tab:
        answer = tab.logout()
        assert answer.status_code == 303
        assert not any(c.startswith("fw_visitor=") for c in set_cookies(answer))


@pytest.mark.parametrize("mode", MODES)
def test_absence_ends_the_session_into_the_identified_state_too(
    mode: str, sqlite_dsn: str, clock: Clock
) -> None:
    assurance = {"presence": {"enabled": True}, **HINT}
    with signed_in(mode, sqlite_dsn, assurance=assurance) as tab:
        clock.advance(HOUR)
        assert tab.visitor() == {"issuer": tab.issuer, "masked_identifier": tab.masked}
        assert not tab.signed_in()


def test_a_tampered_note_reads_as_nobody_and_is_dropped(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=HINT) as tab:
        tab.logout()
        value = taken_note(tab)
        answer = visitor_with(tab, value[:-3] + ("AAA" if not value.endswith("AAA") else "BBB"))
        assert answer.json() is None
        assert any(c.startswith("fw_visitor=;") and "Max-Age=0" in c for c in set_cookies(answer))


def test_an_expired_note_reads_as_nobody(sqlite_dsn: str, clock: Clock) -> None:
    hint = {"hint": {"enabled": True, "ttl": "2h", "idle_timeout": "0s"}}
    with signed_in("oidc_only", sqlite_dsn, assurance=hint) as tab:
        tab.logout()
        value = taken_note(tab)
        clock.advance(2 * HOUR - 1)
        assert visitor_with(tab, value).json() == {"issuer": tab.issuer, "masked_identifier": tab.masked}
        clock.advance(1)
        answer = visitor_with(tab, value)
        assert answer.json() is None
        assert any(c.startswith("fw_visitor=;") and "Max-Age=0" in c for c in set_cookies(answer))


# The idle twin of the expiry test above, kept apart so each way a note ends has its name.
def test_a_note_left_alone_for_the_idle_timeout_reads_as_nobody(sqlite_dsn: str, clock: Clock) -> None:
    hint = {"hint": {"enabled": True, "ttl": "720h", "idle_timeout": "1h"}}
    with signed_in("oidc_only", sqlite_dsn, assurance=hint) as tab:
        tab.logout()
        value = taken_note(tab)
        clock.advance(HOUR - 60)
        assert visitor_with(tab, value).json() == {"issuer": tab.issuer, "masked_identifier": tab.masked}
        clock.advance(60)
        assert visitor_with(tab, value).json() is None


def test_a_ttl_of_zero_remembers_nobody(sqlite_dsn: str) -> None:
    hint = {"hint": {"enabled": True, "ttl": "0s"}}
    with signed_in("oidc_only", sqlite_dsn, assurance=hint, env={"AUTH_HINT_SECRET": ""}) as tab:
        answer = tab.logout()
        assert not any(c.startswith("fw_visitor=") for c in set_cookies(answer))
        assert tab.visitor() is None
        assert tab.post(FORGET).status_code == 303  # old notes can still be dropped


def test_with_the_hint_off_nothing_is_written_and_an_old_note_is_not_read(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=HINT) as tab:
        tab.logout()
        old = taken_note(tab)
    with signed_in("oidc_only", sqlite_dsn) as tab:
        answer = tab.logout()
        assert not any(c.startswith("fw_visitor=") for c in set_cookies(answer))
        assert visitor_with(tab, old).json() is None
        assert tab.post(FORGET).status_code == 404
