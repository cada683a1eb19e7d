"""Server-provided DPoP nonces (RFC 9449 section 8): fresh values a proof must echo.

A nonce is a time window and an HMAC of it under this server's key, so checking one needs no
storage: the current and the previous window's nonces are accepted, so a nonce handed out just
before a window turns stays good for at least one full window. Every process using the same
key (``key``) accepts the others' nonces; a process that draws its own key accepts only its own.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time

import fw.base64url as base64url


class NonceIssuer:
    """Issues and recognizes nonces for windows of ``window`` seconds."""

    def __init__(self, key: bytes | None = None, *, window: float = 300.0) -> None:
        self._key = key or os.urandom(32)
        self.window = window

    def _nonce(self, index: int) -> str:
        mac = hmac.new(self._key, index.to_bytes(8, "big"), hashlib.sha256).digest()[:18]
        return base64url.encode(mac)

    def _index(self, now: float | None) -> int:
        return int((time.time() if now is None else now) // self.window)

    def current(self, now: float | None = None) -> str:
        """The nonce to hand out now (the ``DPoP-Nonce`` response header)."""
        return self._nonce(self._index(now))

    def accepted(self, now: float | None = None) -> tuple[str, str]:
        """The nonces a proof may carry now: this window's and the previous one's."""
        index = self._index(now)
        return self._nonce(index), self._nonce(index - 1)
