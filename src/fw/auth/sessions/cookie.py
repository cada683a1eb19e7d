"""The ``cookie`` backend: the record travels sealed (AES-256-GCM) inside the cookie itself.

No server state, so logout and a new login cannot invalidate a copy a client already took: it
works until its seal expires. Account suspension still applies, because the account is re-read
on requests. The key comes from ``session.keyring.secret``.
"""

from __future__ import annotations

import base64
import binascii

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from fw.auth.sessions.seal import Sealer
from fw.auth.sessions.store import Record, unexpired
from fw.errors import StartupError

SECRET_KEY = "session.keyring.secret"
_MAX_COOKIE = 3800


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def derive_key(secret: str) -> bytes:
    """A 256-bit AEAD key from the configured secret (base64url of at least 32 random bytes)."""
    try:
        raw = _b64decode(secret.strip())
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) < 32:
        raise StartupError(
            SECRET_KEY,
            "*****" if secret else "",
            "the cookie session backend needs 32 or more random bytes, base64url-encoded "
            '(python -c "import secrets; print(secrets.token_urlsafe(32))")',
        )
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"fw session seal").derive(raw)


class CookieStore:
    name = "cookie"

    def __init__(self, secret: str) -> None:
        self._key = derive_key(secret)
        self._sealer = Sealer(self._key, "session")

    def seal(self, record: Record, expires_at: float) -> str:
        sealed = self._sealer.seal({**record, "_exp": expires_at})
        if len(sealed) > _MAX_COOKIE:
            raise ValueError("the session record is too large for a cookie")
        return sealed

    def unseal(self, value: str) -> Record | None:
        if len(value) > _MAX_COOKIE:
            return None
        return unexpired(self._sealer.open(value))

    async def save(self, record: Record, expires_at: float) -> str:
        return self.seal(record, expires_at)

    async def load(self, value: str) -> Record | None:
        return self.unseal(value)

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        return self.seal(record, expires_at)

    async def delete(self, value: str) -> None:
        """Nothing to delete server-side; the caller expires the cookie."""

    async def shared_key(self) -> bytes:
        """Every process has the same configured secret; callers derive their own subkey from it."""
        return self._key

    async def check(self) -> None:
        """The key was checked when the store was built."""

    async def close(self) -> None:
        return None
