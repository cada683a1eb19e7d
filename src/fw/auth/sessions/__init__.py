"""Browser sessions: an opaque cookie, a record in the configured backend, ttl and idle timeout.

The backends themselves live behind the session interface in :mod:`fw.auth.stores`. The
``[session]`` table is :mod:`fw.auth.sessions.settings`, registered with the facade's import;
the session code (:mod:`fw.auth.sessions.manager`) loads on first use of a name below, so
registering the table loads none of it (DESIGN 10.1).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    if name in __all__:
        from fw.auth.sessions import manager

        return getattr(manager, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
