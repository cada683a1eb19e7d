"""Browser sessions: an opaque cookie, a record in the configured backend, ttl and idle timeout.

The backends themselves live behind the session interface in :mod:`fw.auth.stores`.
"""

from fw.auth.sessions.manager import (
    RECONFIRM_COOKIE,
    SESSION_COOKIE,
    ActiveSession,
    Sessions,
    SessionSummary,
)

__all__ = [
    "RECONFIRM_COOKIE",
    "SESSION_COOKIE",
    "ActiveSession",
    "SessionSummary",
    "Sessions",
]
