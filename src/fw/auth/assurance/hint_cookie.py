"""The sealed note of the last visitor: written when a session ends, read on every request.

The note holds the issuer and the identifier (the e-mail address, else the username, else the
display name, else the account link), sealed with a key derived from ``[auth.assurance.hint]
secret``, so the browser can neither read nor forge it. It expires ``ttl`` after it was written
and, with ``idle_timeout`` above ``0s``, when the browser has not come back for that long; a
visit refreshes it at most once a day (and a tenth of ``idle_timeout``). Anything that does not
open, or has expired, is ignored and dropped.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from starlette.requests import Request

from fw.auth.assurance.hint import RememberedVisitor, mask_identifier
from fw.auth.assurance.hint_rules import hint_keys
from fw.auth.browser.cookies import expire_cookie, set_cookie
from fw.auth.sessions.seal import Sealer
from fw.auth.settings import AssuranceHint

HINT_COOKIE = "fw_visitor"
#: What the note's key is derived for: a seal made for anything else never opens as a note.
PURPOSE = "remembered visitor"
#: Longer identifiers are cut: the note must stay a small cookie, and only the ends are shown.
MAX_IDENTIFIER = 256
_REFRESH_AT_MOST = 24 * 3600.0


class Visitor(Protocol):
    """What a session knows of its person (a ``User`` or a ``SessionSummary``)."""

    @property
    def issuer(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def username(self) -> str: ...
    @property
    def display_name(self) -> str: ...
    @property
    def key(self) -> str: ...


def identifier_of(visitor: Visitor) -> str:
    """The identifier a person recognises as theirs on a login screen."""
    for value in (visitor.email, visitor.username, visitor.display_name, visitor.key):
        if value:
            return value[:MAX_IDENTIFIER]
    return ""


class VisitorNotes:
    """Writes and reads notes for one App, under the settings that passed the startup rules."""

    def __init__(self, hint: AssuranceHint) -> None:
        self.ttl = hint.ttl.total_seconds()
        self.idle_timeout = hint.idle_timeout.total_seconds()
        keys = hint_keys(hint)
        self._sealer = Sealer(keys[0], PURPOSE)
        self._openers = [self._sealer, *(Sealer(key, PURPOSE) for key in keys[1:])]

    def _refresh_after(self) -> float:
        return min(_REFRESH_AT_MOST, self.idle_timeout / 10) if self.idle_timeout > 0 else float("inf")

    def _cookie(self, note: dict[str, Any], secure: bool, now: float) -> str:
        max_age = max(1, int(note["at"] + self.ttl - now))
        return set_cookie(HINT_COOKIE, self._sealer.seal(note), secure=secure, max_age=max_age)

    @staticmethod
    def remembered(visitor: Visitor) -> RememberedVisitor | None:
        """How ``visitor`` reads once remembered (``None``: nothing to remember of them)."""
        identifier = identifier_of(visitor)
        if not identifier or not visitor.issuer:
            return None
        return RememberedVisitor(visitor.issuer, mask_identifier(identifier))

    def write(self, visitor: Visitor, *, secure: bool, now: float | None = None) -> list[str]:
        """The Set-Cookie header keeping ``visitor`` in mind (none when there is nothing to show)."""
        identifier = identifier_of(visitor)
        if not identifier or not visitor.issuer:
            return []
        now = time.time() if now is None else now
        note = {"iss": visitor.issuer, "id": identifier, "at": now, "seen": now}
        return [self._cookie(note, secure, now)]

    def read(
        self, request: Request, *, secure: bool, now: float | None = None
    ) -> tuple[RememberedVisitor | None, list[str]]:
        """The remembered visitor and the Set-Cookie headers the answer carries (a refresh, a drop)."""
        text = request.cookies.get(HINT_COOKIE)
        if not text:
            return None, []
        now = time.time() if now is None else now
        note = self._open(text)
        if note is None or self._expired(note, now):
            return None, [expire_cookie(HINT_COOKIE, secure=secure)]
        visitor = RememberedVisitor(note["iss"], mask_identifier(note["id"]))
        if now - note["seen"] >= self._refresh_after():
            return visitor, [self._cookie({**note, "seen": now}, secure, now)]
        return visitor, []

    def _open(self, text: str) -> dict[str, Any] | None:
        for sealer in self._openers:
            opened = sealer.open(text)
            if opened is not None:
                return opened if _well_formed(opened) else None
        return None

    def _expired(self, note: dict[str, Any], now: float) -> bool:
        if note["at"] + self.ttl <= now or note["at"] > now + 60:
            return True
        return self.idle_timeout > 0 and note["seen"] + self.idle_timeout <= now


def _well_formed(note: Any) -> bool:
    return (
        isinstance(note, dict)
        and isinstance(note.get("iss"), str)
        and isinstance(note.get("id"), str)
        and all(
            isinstance(note.get(name), int | float) and not isinstance(note.get(name), bool)
            for name in ("at", "seen")
        )
    )


def forget_cookie(*, secure: bool) -> str:
    """The Set-Cookie header dropping the note."""
    return expire_cookie(HINT_COOKIE, secure=secure)
