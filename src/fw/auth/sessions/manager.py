"""Session lifetimes and the session record: an account summary, never provider tokens.

Records live in the configured backend, so a session started on one app process is valid on
every other. Sign-ins in progress are not sessions and never touch the store: see
:mod:`fw.auth.browser.login_state`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fw.auth.stores.interfaces import SessionStore
from fw.auth.stores.tokens import Record

SESSION_COOKIE = "fw_session"
RECONFIRM_COOKIE = "fw_reconfirm"


_PROFILE_FIELDS = ("provider", "subject", "username", "avatar_url")
#: A timestamp's types, as a tuple: ``int | float`` would be built again on every request.
_NUMBER = (int, float)


@dataclass(frozen=True)
class SessionSummary:
    """What a session remembers about its account: enough to answer ``fw.auth.user``."""

    account_id: str
    display_name: str
    email: str
    issuer: str
    key: str
    auth_time: int | None
    #: How the person proved who they are at sign-in: ``"oidc"``, ``"passkey"`` or ``"oauth"``.
    method: str = "oidc"
    #: ``oauth_only``: the provider's name, its user ID, and the handle and avatar at login time.
    provider: str = ""
    subject: str = ""
    username: str = ""
    avatar_url: str = ""
    #: When the last re-proof a guard asked for (a step-up) happened; a login never sets it.
    confirmed_at: int | None = None
    #: The one-use grant a zero-width step-up left (see :mod:`fw.auth.assurance.grants`).
    grant: str = ""
    #: What a back-channel logout finds this session by (:mod:`fw.auth.sessions.marks`).
    marks: tuple[str, ...] = ()

    def to_record(self) -> Record:
        # The oauth_only fields are written only when set: other modes' records stay as they were.
        profile = {name: getattr(self, name) for name in _PROFILE_FIELDS if getattr(self, name)}
        return {
            "account_id": self.account_id,
            "display_name": self.display_name,
            "email": self.email,
            "issuer": self.issuer,
            "key": self.key,
            "auth_time": self.auth_time,
            "method": self.method,
            **profile,
            **({"confirmed_at": self.confirmed_at} if self.confirmed_at is not None else {}),
            **({"grant": self.grant} if self.grant else {}),
            **({"marks": list(self.marks)} if self.marks else {}),
        }

    @classmethod
    def from_record(cls, record: Record) -> SessionSummary | None:
        try:
            auth_time = record.get("auth_time")
            confirmed_at = record.get("confirmed_at")
            return cls(
                account_id=str(record["account_id"]),
                display_name=str(record.get("display_name", "")),
                email=str(record.get("email", "")),
                issuer=str(record["issuer"]),
                key=str(record.get("key", "")),
                auth_time=int(auth_time) if isinstance(auth_time, int) else None,
                method=str(record.get("method", "oidc")),
                provider=str(record.get("provider", "")),
                subject=str(record.get("subject", "")),
                username=str(record.get("username", "")),
                avatar_url=str(record.get("avatar_url", "")),
                confirmed_at=confirmed_at if isinstance(confirmed_at, int) else None,
                grant=str(record.get("grant", "")),
                marks=_marks_of(record),
            )
        except (KeyError, TypeError, ValueError):
            return None


def _marks_of(record: Record) -> tuple[str, ...]:
    marks = record.get("marks")
    return tuple(m for m in marks if isinstance(m, str)) if isinstance(marks, list) else ()


@dataclass
class ActiveSession:
    """A resumed session: the cookie value to keep sending and whether it changed."""

    value: str
    summary: SessionSummary
    record: Record
    renewed: bool = False
    #: The absolute expiry (creation plus ``auth.session.ttl``); activity never moves it.
    expires_at: float = 0.0


class Sessions:
    """Creates, resumes (checking ttl and idle timeout) and ends sessions in one backend."""

    def __init__(self, store: SessionStore, *, ttl: float, idle_timeout: float) -> None:
        self.store = store
        self.ttl = ttl
        self.idle_timeout = idle_timeout

    def _touch_after(self) -> float:
        return min(60.0, self.idle_timeout / 10) if self.idle_timeout > 0 else float("inf")

    async def start(self, summary: SessionSummary, *, previous: str | None = None) -> str:
        """A new session under a new token; the browser's earlier session is revoked (no fixation)."""
        if previous:
            await self.store.delete(previous)
        now = time.time()
        record = {**summary.to_record(), "kind": "session", "created_at": now, "last_seen": now}
        return await self.store.save(record, now + self.ttl)

    async def resume(self, value: str, *, touch: bool = True) -> ActiveSession | None:
        """The live session behind ``value``, or ``None``. ``touch=False``: the request is no sign
        of activity (a presence report that may say nobody is there), so the idle clock stays."""
        record = await self.store.load(value)
        if record is None or record.get("kind") != "session":
            return None
        summary = SessionSummary.from_record(record)
        created = record.get("created_at")
        last_seen = record.get("last_seen")
        if summary is None or not isinstance(created, _NUMBER) or not isinstance(last_seen, _NUMBER):
            return None
        now = time.time()
        if created + self.ttl <= now or (self.idle_timeout > 0 and last_seen + self.idle_timeout <= now):
            await self.store.delete(value)
            return None
        session = ActiveSession(value, summary, record, expires_at=created + self.ttl)
        if touch and now - last_seen >= self._touch_after():
            record["last_seen"] = now
            new_value = await self.store.update(value, record, created + self.ttl)
            session.renewed = new_value != value
            session.value = new_value
        return session

    async def refresh(self, session: ActiveSession, summary: SessionSummary) -> None:
        """Store a re-read account summary (display name or e-mail changed)."""
        record = {**session.record, **summary.to_record()}
        created = float(record["created_at"])
        new_value = await self.store.update(session.value, record, created + self.ttl)
        session.renewed = session.renewed or new_value != session.value
        session.value, session.record, session.summary = new_value, record, summary

    async def rotate(self, session: ActiveSession, summary: SessionSummary) -> None:
        """The same session under a new token, its earlier token revoked (after a re-proof).

        Its absolute expiry stays where sign-in put it: a re-proof raises assurance, not lifetime.
        """
        record = {**session.record, **summary.to_record()}
        created = float(record["created_at"])
        new_value = await self.store.save(record, created + self.ttl)
        await self.store.delete(session.value)
        session.value, session.record, session.summary, session.renewed = new_value, record, summary, True

    async def note(self, session: ActiveSession, **fields: float) -> None:
        """Store extra fields of the record (presence: when someone was last at the keyboard).

        The absolute expiry stays where the session's creation put it, whatever is noted.
        """
        record = {**session.record, **fields}
        created = float(record["created_at"])
        new_value = await self.store.update(session.value, record, created + self.ttl)
        session.renewed = session.renewed or new_value != session.value
        session.value, session.record = new_value, record

    async def end(self, value: str) -> None:
        await self.store.delete(value)

    async def end_marked(self, mark: str) -> int:
        """End every session carrying ``mark``, in every process sharing the store."""
        return await self.store.delete_marked(mark)


#: Where the session middleware leaves the resumed session, for endpoints that note something in it.
SESSION_SCOPE_KEY = "fw.auth.session"


def active_session(scope: Mapping[str, Any]) -> ActiveSession | None:
    """The session the middleware resumed for this request, or ``None`` (anonymous)."""
    found = scope.get(SESSION_SCOPE_KEY)
    return found if isinstance(found, ActiveSession) else None
