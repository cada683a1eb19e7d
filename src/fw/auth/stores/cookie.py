"""The ``cookie`` session backend: the record travels sealed (AES-256-GCM) inside the cookie itself.

No server state, so logout and a new login cannot invalidate a copy a client already took: it
works until its seal expires. Account suspension still applies, because the account is re-read
on requests. The key comes from ``session.keyring.secret``.

Rotation without signing everyone out: list the new secret first and the old one after it
(separated by a space or a comma). New seals use the first; cookies sealed with any listed
secret still open until they expire; drop the old secret after ``auth.session.ttl``.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from fw.auth.sessions.seal import SECRET_RECIPE, Sealer, listed_secrets, secret_bytes
from fw.auth.stores.tokens import Record, unexpired
from fw.errors import StartupError

SECRET_KEY = "session.keyring.secret"
_MAX_COOKIE = 3800


def derive_key(secret: str) -> bytes:
    """A 256-bit AEAD key from the configured secret (base64url of at least 32 random bytes)."""
    raw = secret_bytes(secret)
    if raw is None:
        raise StartupError(
            SECRET_KEY,
            "*****" if secret else "",
            f"the cookie session backend needs 32 or more random bytes, base64url-encoded ({SECRET_RECIPE})",
        )
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"fw session seal").derive(raw)


def derive_keys(listed: str) -> list[bytes]:
    """One key per listed secret, the sealing one first; each must be strong on its own."""
    return [derive_key(secret) for secret in listed_secrets(listed)] or [derive_key("")]


class CookieSessions:
    name = "cookie"

    def __init__(self, secret: str) -> None:
        keys = derive_keys(secret)
        self._key = keys[0]
        self._sealer = Sealer(self._key, "session")
        self._openers = [self._sealer, *(Sealer(key, "session") for key in keys[1:])]

    def seal(self, record: Record, expires_at: float) -> str:
        sealed = self._sealer.seal({**record, "_exp": expires_at})
        if len(sealed) > _MAX_COOKIE:
            raise ValueError("the session record is too large for a cookie")
        return sealed

    def unseal(self, value: str) -> Record | None:
        if len(value) > _MAX_COOKIE:
            return None
        for sealer in self._openers:
            opened = sealer.open(value)
            if opened is not None:
                return unexpired(opened)
        return None

    async def save(self, record: Record, expires_at: float) -> str:
        return self.seal(record, expires_at)

    async def load(self, value: str) -> Record | None:
        return self.unseal(value)

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        return self.seal(record, expires_at)

    async def delete(self, value: str) -> None:
        """Nothing to delete server-side; the caller expires the cookie."""

    async def delete_account(self, account_id: str) -> int:
        """Nothing is kept server-side, so no copy can be recalled: the account re-read ends them."""
        return 0

    async def delete_marked(self, mark: str) -> int:
        """Nothing is kept server-side; back-channel logout refuses this backend at startup."""
        del mark
        return 0

    async def shared_key(self, offer: bytes | None = None) -> bytes:
        """Every process has the same configured secret; callers derive their own subkey from it."""
        del offer  # nothing to lose: the key comes from the configuration
        return self._key

    async def check(self) -> None:
        """The key was checked when the store was built."""

    async def close(self) -> None:
        return None
