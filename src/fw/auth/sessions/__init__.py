"""Browser sessions: an opaque cookie, a record in the configured backend, ttl and idle timeout."""

from fw.auth.sessions.cookie import CookieStore
from fw.auth.sessions.manager import (
    RECONFIRM_COOKIE,
    SESSION_COOKIE,
    ActiveSession,
    Sessions,
    SessionSummary,
)
from fw.auth.sessions.store import SessionStore, SessionStoreUnavailable, new_token

__all__ = [
    "RECONFIRM_COOKIE",
    "SESSION_COOKIE",
    "ActiveSession",
    "CookieStore",
    "SessionStore",
    "SessionStoreUnavailable",
    "SessionSummary",
    "Sessions",
    "new_token",
]
