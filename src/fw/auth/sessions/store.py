"""The one small interface every session backend implements.

A backend turns a JSON-able record into the value the browser's cookie carries and back. Server
backends (rdb, redis) hand out a random 43-character token and keep the record under its SHA-256
digest, so a leaked table holds no usable cookie; the cookie backend seals the record itself.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from typing import Any, Protocol

_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
Record = dict[str, Any]


class SessionStoreUnavailable(Exception):
    """The session backend could not answer; requests that need it get a 503."""


def new_token() -> str:
    """A 43-character URL-safe random token (256 bits)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


#: Where server backends keep the shared key; not a token digest, so no cookie can address it.
SHARED_KEY_ID = "fw:shared-key"


def well_formed(token: str) -> bool:
    """Whether ``token`` could be one :func:`new_token` made (``fullmatch``: no trailing newline)."""
    return _TOKEN.fullmatch(token) is not None


def unexpired(data: object) -> Record | None:
    """A stored document carrying its own expiry (``_exp``), or ``None`` when malformed or expired.

    Backends whose storage may outlive the record (a cookie, a Redis key between its expiry and
    eviction) check ``_exp`` themselves instead of trusting the medium.
    """
    if not isinstance(data, dict):
        return None
    expires = data.pop("_exp", 0)
    if not isinstance(expires, int | float) or expires <= time.time():
        return None
    return data


class SessionStore(Protocol):
    """Records keyed by what the cookie carries; ``expires_at`` is a UNIX time."""

    name: str

    async def save(self, record: Record, expires_at: float) -> str:
        """Store a new record; returns the cookie value."""
        ...

    async def load(self, value: str) -> Record | None:
        """The record for a cookie value; ``None`` for unknown, expired, forged or malformed."""
        ...

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        """Rewrite an existing record; returns the (possibly new) cookie value."""
        ...

    async def delete(self, value: str) -> None: ...

    async def shared_key(self) -> bytes:
        """32 random bytes every app process sharing this backend agrees on (seals login state).

        Created by the first process that asks and kept by the backend itself, so scaling out
        needs no extra secret in the configuration.
        """
        ...

    async def check(self) -> None:
        """Raise :class:`fw.StartupError` when the backend is unusable (startup precondition)."""
        ...

    async def close(self) -> None: ...
