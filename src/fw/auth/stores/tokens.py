"""What a session cookie carries and how server backends key the record behind it.

Server backends (rdb, redis) hand out a random 43-character token and keep the record under its
SHA-256 digest, so a leaked table holds no usable cookie; the cookie backend seals the record
itself and checks the expiry it carries.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from typing import Any

_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")

#: A session record: JSON-able, an account summary and its timestamps.
Record = dict[str, Any]

#: Where server backends keep the shared key; not a token digest, so no cookie can address it.
SHARED_KEY_ID = "fw:shared-key"


def new_token() -> str:
    """A 43-character URL-safe random token (256 bits)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


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
    if not isinstance(expires, (int, float)) or expires <= time.time():
        return None
    return data


#: A mark: what :meth:`SessionStore.delete_marked` finds sessions by (a hex digest in practice).
_MARK = re.compile(r"[A-Za-z0-9:_-]{1,64}")


def session_marks(record: Record) -> frozenset[str]:
    """The well-formed entries of a record's ``marks`` list (others are ignored, never indexed)."""
    marks = record.get("marks")
    if not isinstance(marks, list):
        return frozenset()
    return frozenset(m for m in marks if isinstance(m, str) and _MARK.fullmatch(m))
