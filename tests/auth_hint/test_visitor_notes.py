"""The sealed note on its own: what it keeps, when it expires, what it refuses to open."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from starlette.requests import Request

from fw.auth.assurance.hint import RememberedVisitor
from fw.auth.assurance.hint_cookie import HINT_COOKIE, VisitorNotes, identifier_of
from fw.auth.sessions.seal import Sealer, secret_bytes
from fw.auth.settings import AssuranceHint

SECRET = secrets.token_urlsafe(32)
NOW = 1_750_000_000.0
HOUR = 3600.0


@dataclass
class Person:
    issuer: str = "https://id.example"
    email: str = "alice@example.com"
    username: str = ""
    display_name: str = "Alice"
    key: str = "248289761001"


#: What a note written for the default :class:`Person` reads back as.
ALICE = RememberedVisitor("https://id.example", "a•••••@example.com")


def notes(secret: str = SECRET, ttl: float = 720 * HOUR, idle: float = 336 * HOUR) -> VisitorNotes:
    return VisitorNotes(AssuranceHint(True, secret, timedelta(seconds=ttl), timedelta(seconds=idle)))


def request_with(value: str) -> Request:
    cookie = f"{HINT_COOKIE}={value}".encode()
    return Request({"type": "http", "method": "GET", "path": "/", "headers": [(b"cookie", cookie)]})


def written(keeper: VisitorNotes, person: Person | None = None, now: float = NOW) -> str:
    [header] = keeper.write(person or Person(), secure=True, now=now)
    assert header.startswith(f"{HINT_COOKIE}=")
    return header.split(";")[0].split("=", 1)[1]


def test_a_note_keeps_the_issuer_and_shows_the_identifier_masked() -> None:
    keeper = notes()
    visitor, cookies = keeper.read(request_with(written(keeper)), secure=True, now=NOW + HOUR)
    assert visitor == ALICE
    assert cookies == []


def test_the_note_is_a_secure_http_only_cookie_living_as_long_as_the_ttl() -> None:
    [header] = notes(ttl=2 * HOUR).write(Person(), secure=True, now=NOW)
    assert "HttpOnly" in header and "SameSite=Lax" in header and "Secure" in header and "Path=/" in header
    assert "Max-Age=7200" in header


def test_the_identifier_inside_the_note_cannot_be_read_from_the_cookie() -> None:
    value = written(notes())
    assert "alice" not in value and "example" not in value


def test_a_tampered_note_is_ignored_and_dropped() -> None:
    keeper = notes()
    value = written(keeper)
    flipped = value[:20] + ("A" if value[20] != "A" else "B") + value[21:]
    for forged in (flipped, value[:-4], "garbage", value + "x"):
        visitor, cookies = keeper.read(request_with(forged), secure=True, now=NOW)
        assert visitor is None
        assert len(cookies) == 1 and cookies[0].startswith(f"{HINT_COOKIE}=;") and "Max-Age=0" in cookies[0]


def test_a_note_sealed_with_another_secret_or_for_another_purpose_is_ignored() -> None:
    other = written(notes(secret=secrets.token_urlsafe(32)))
    assert notes().read(request_with(other), secure=True, now=NOW)[0] is None
    raw = secret_bytes(SECRET)
    assert raw is not None
    session_seal = Sealer(raw, "session").seal({"iss": "x", "id": "y", "at": NOW, "seen": NOW})
    assert notes().read(request_with(session_seal), secure=True, now=NOW)[0] is None


def test_a_well_sealed_note_of_the_wrong_shape_is_ignored() -> None:
    raw = secret_bytes(SECRET)
    assert raw is not None
    sealer = Sealer(raw, "remembered visitor")
    for shape in (
        {"iss": "x", "id": 3, "at": NOW, "seen": NOW},
        {"iss": "x", "id": "y", "at": True, "seen": NOW},
        [],
    ):
        assert notes().read(request_with(sealer.seal(shape)), secure=True, now=NOW)[0] is None


def test_a_note_expires_ttl_after_it_was_written() -> None:
    keeper = notes(ttl=10 * HOUR, idle=0)
    value = written(keeper)
    assert keeper.read(request_with(value), secure=True, now=NOW + 10 * HOUR - 1)[0] == ALICE
    visitor, cookies = keeper.read(request_with(value), secure=True, now=NOW + 10 * HOUR)
    assert visitor is None and "Max-Age=0" in cookies[0]


def test_a_note_expires_when_the_browser_stays_away_for_the_idle_timeout() -> None:
    keeper = notes(ttl=720 * HOUR, idle=48 * HOUR)
    value = written(keeper)
    assert keeper.read(request_with(value), secure=True, now=NOW + 48 * HOUR)[0] is None


def test_a_visit_refreshes_the_note_so_a_returning_browser_keeps_it_until_the_ttl() -> None:
    keeper = notes(ttl=720 * HOUR, idle=48 * HOUR)
    value = written(keeper)
    now = NOW
    for _ in range(10):  # every 40 hours, ten times: 400 hours, never 48 away
        now += 40 * HOUR
        visitor, cookies = keeper.read(request_with(value), secure=True, now=now)
        assert visitor == ALICE
        [refreshed] = cookies
        value = refreshed.split(";")[0].split("=", 1)[1]
        max_age = int(refreshed.split("Max-Age=")[1].split(";")[0])
        assert max_age == int(NOW + 720 * HOUR - now)  # the ttl still counts from the writing
    assert keeper.read(request_with(value), secure=True, now=NOW + 720 * HOUR)[0] is None


def test_a_visit_soon_after_the_last_one_writes_nothing() -> None:
    keeper = notes(idle=48 * HOUR)
    value = written(keeper)
    assert keeper.read(request_with(value), secure=True, now=NOW + HOUR)[1] == []


def test_a_note_sealed_with_the_previous_secret_still_opens_after_a_rotation() -> None:
    old = notes()
    value = written(old)
    rotated = notes(secret=f"{secrets.token_urlsafe(32)} {SECRET}")
    assert rotated.read(request_with(value), secure=True, now=NOW + HOUR)[0] == ALICE
    fresh = written(rotated)
    assert old.read(request_with(fresh), secure=True, now=NOW)[0] is None  # new notes use the new key


def test_a_note_dated_in_the_future_is_ignored() -> None:
    keeper = notes()
    value = written(keeper, now=NOW + 3600)
    assert keeper.read(request_with(value), secure=True, now=NOW)[0] is None


def test_the_identifier_is_the_email_else_the_username_else_the_name_else_the_account_link() -> None:
    assert identifier_of(Person()) == "alice@example.com"
    assert identifier_of(Person(email="", username="alice")) == "alice"
    assert identifier_of(Person(email="", display_name="Alice")) == "Alice"
    assert identifier_of(Person(email="", display_name="")) == "248289761001"


def test_nothing_is_written_for_a_person_without_any_identifier() -> None:
    assert notes().write(Person(email="", display_name="", key=""), secure=True) == []


def test_a_very_long_identifier_is_cut_so_the_note_stays_a_small_cookie() -> None:
    [header] = notes().write(Person(email="a" * 5000 + "@example.com"), secure=False)
    assert len(header) < 1000 and "Secure" not in header
