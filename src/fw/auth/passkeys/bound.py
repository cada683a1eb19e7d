"""Server-side records bound to one browser by a cookie: passkey ceremonies and enrollment tickets.

The cookie carries only a random token; the record (the challenge, the account it is for) lives
in the ``auth.backend`` ceremony store under a digest of that token, so every app process
sharing the store can finish what another began, and a leaked table row cannot be replayed as a
cookie. The cookie is scoped to ``auth.passkey.path``, ``HttpOnly`` and ``SameSite=Strict``: no
page script and no other site's request ever carries it. A record is taken once: a replayed
finish finds nothing.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request

from fw.auth.browser.answers import unavailable
from fw.auth.browser.cookies import cookie_secure
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import CeremonyStore


@dataclass(frozen=True, slots=True)
class BoundRecords:
    """One kind of browser-bound record (``kind`` namespaces its store keys)."""

    kind: str
    cookie: str
    path: str

    def _key(self, token: str) -> str:
        return f"{self.kind}:{hashlib.sha256(token.encode()).hexdigest()}"

    async def put(
        self, request: Request, store: CeremonyStore, record: dict[str, Any], lifetime: timedelta
    ) -> str:
        """Store ``record`` for this browser; returns the Set-Cookie header that binds it."""
        token = secrets.token_urlsafe(32)
        try:
            await store.put(self._key(token), record, datetime.now(UTC) + lifetime)
        except StoreUnavailable:
            raise unavailable("ceremony store") from None
        return self._cookie(request, token, max(1, int(lifetime.total_seconds())))

    async def take(self, request: Request, store: CeremonyStore) -> dict[str, Any] | None:
        """The record this browser's cookie names, removed; ``None`` without one (or once taken)."""
        token = request.cookies.get(self.cookie)
        if not token or len(token) > 128:
            return None
        try:
            return await store.take(self._key(token))
        except StoreUnavailable:
            raise unavailable("ceremony store") from None

    def expire(self, request: Request) -> str:
        """The Set-Cookie header that makes the browser forget the binding."""
        return self._cookie(request, "", 0) + "; Expires=Thu, 01 Jan 1970 00:00:00 GMT"

    def _cookie(self, request: Request, value: str, max_age: int) -> str:
        parts = [f"{self.cookie}={value}", f"Path={self.path}", "HttpOnly", "SameSite=Strict"]
        parts.append(f"Max-Age={max_age}")
        if cookie_secure(request):
            parts.append("Secure")
        return "; ".join(parts)
