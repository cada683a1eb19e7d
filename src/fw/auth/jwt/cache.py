"""The verified-token cache: a client repeating its bearer token pays for the signature once.

Like Envoy's ``jwt_authn`` cache, an entry is keyed by a SHA-256 digest of the whole token
(the exact string presented, so any other spelling is another entry, and the cache keeps no
bearer credential itself), and it holds only tokens that passed every check of the verifier.
An entry lives until the token's ``exp`` (never past it, although the verifier's leeway would
accept the token a little longer), is evicted least-recently-used when the cache is full, and
the whole cache is dropped when the issuer's key set changes, so a key the issuer withdrew
stops vouching for tokens at once. What must be decided per request (revocation, admission,
the account) is not the verifier's business and is never cached here.

Claims are decoded again from the stored payload on every hit, so each request gets its own
claims dict: a handler changing one request's claims cannot change the next request's.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, NamedTuple


class CachedToken(NamedTuple):
    """What a verified token left behind: its payload bytes and the facts drawn from them.

    A tuple rather than a frozen dataclass: one is built on every cache miss, and a tuple is
    built several times faster.
    """

    payload: bytes
    header: dict[str, Any]
    identity: str
    token_id: str | None
    issued_at: float
    expires_at: float


_sha256 = hashlib.sha256


def token_digest(token: str) -> bytes:
    """The cache key of ``token``: SHA-256, so no two tokens can be made to share an entry."""
    return _sha256(token.encode("utf-8", "surrogatepass")).digest()


class TokenCache:
    """A bounded LRU of verified tokens, valid for one version of the issuer's key set.

    ``size`` is the most entries kept (positive). ``version`` is whatever identifies the key
    set the entries were verified with; :meth:`get` and :meth:`put` with another version drop
    every entry first.
    """

    def __init__(self, size: int) -> None:
        if size <= 0:
            raise ValueError(f"a token cache holds at least one entry, not {size}")
        self.size = size
        self._entries: OrderedDict[bytes, CachedToken] = OrderedDict()
        self._version: object = None

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, digest: bytes, now: float, version: object) -> CachedToken | None:
        """The entry for ``digest`` if it is still before its ``exp`` under key set ``version``."""
        if version != self._version:
            self._switch(version)
            return None
        entry = self._entries.get(digest)
        if entry is None:
            return None
        if now >= entry.expires_at:
            del self._entries[digest]
            return None
        self._entries.move_to_end(digest)
        return entry

    def put(self, digest: bytes, entry: CachedToken, now: float, version: object) -> None:
        """Remember a verified token; one already past its ``exp`` is not kept."""
        if version != self._version:
            self._switch(version)
        if now >= entry.expires_at:
            return
        self._entries[digest] = entry
        self._entries.move_to_end(digest)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()

    def _switch(self, version: object) -> None:
        self._entries.clear()
        self._version = version
