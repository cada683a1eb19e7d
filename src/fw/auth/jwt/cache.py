"""The verified-token cache: a client repeating its bearer token pays for the signature once or twice.

Like Envoy's ``jwt_authn`` cache, an entry belongs to one exact token string (any other spelling
is another token), identified without keeping the bearer credential itself: the entry keeps the
header and payload segments verbatim (what it holds decoded anyway) and the SHA-256 digest of
the signature segment, so only the token with that header, that payload and that signature
matches (and a quarter of the token is hashed instead of all of it). The cache holds only
tokens that passed every check of the verifier. An entry lives until the token's ``exp`` (never
past it, although the verifier's leeway would accept the token a little longer), is evicted
least-recently-used when the cache is full, and the whole cache is dropped when the issuer's key
set changes, so a key the issuer withdrew stops vouching for tokens at once. What must be
decided per request (revocation, admission, the account) is not the verifier's business and is
never cached here.

Two choices keep a stream of different tokens (nothing to gain from a cache) from paying for one:

* entries are found through Python's string hash, which a token string computes once, and only
  a candidate found that way has its segments compared and its signature digest computed: a
  miss costs one dictionary lookup, and only an equal prefix and digest make a hit;
* a verified token is admitted on its second verification (a *doorkeeper*, as in TinyLFU): the
  first one only leaves its string hash in a bounded set. A one-off token therefore never pays
  for a digest or an entry, and a repeated one is verified twice, then served from the cache.

Each hit gives the request its own claims dict (see :func:`fw.auth.tokens.jws.claims_source`,
which the entry keeps): a handler changing one request's claims cannot change the next
request's.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

_sha256 = hashlib.sha256

#: The doorkeeper remembers this many tokens per cache entry before it starts afresh.
SEEN_PER_ENTRY = 4


class CachedToken(NamedTuple):
    """What a verified token left behind: its claims and the facts drawn from them.

    A tuple rather than a frozen dataclass: one is built for every admitted token, and a tuple
    is built several times faster.
    """

    digest: bytes
    #: A new claims dict on each call, sharing nothing mutable (:func:`~fw.auth.tokens.jws.claims_source`).
    claims: Callable[[], dict[str, Any]]
    header: dict[str, Any]
    identity: str
    token_id: str | None
    issued_at: float
    expires_at: float
    #: The token up to and with its last ``.`` (:func:`signed_prefix`): header and payload.
    prefix: str = ""


def token_digest(token: str) -> bytes:
    """SHA-256 of the token's signature segment, everything after its last ``.``.

    With :func:`signed_prefix` compared verbatim, the pair identifies the whole token: no two
    tokens can share an entry.
    """
    return _sha256(token[token.rfind(".") + 1 :].encode("utf-8", "surrogatepass")).digest()


def signed_prefix(token: str) -> str:
    """The token up to and with its last ``.`` (empty without one): its signed segments."""
    return token[: token.rfind(".") + 1]


class TokenCache:
    """A bounded LRU of verified tokens, valid for one version of the issuer's key set.

    ``size`` is the most entries kept (positive). ``clock`` gives the time compared with each
    entry's ``exp``; ``key_version`` whatever identifies the key set in use, asked on every
    lookup: :meth:`get` and :meth:`put` under another version drop every entry (and the
    doorkeeper's memory) first.
    """

    def __init__(
        self,
        size: int,
        *,
        clock: Callable[[], float] = time.time,
        key_version: Callable[[], object] = lambda: None,
    ) -> None:
        if size <= 0:
            raise ValueError(f"a token cache holds at least one entry, not {size}")
        self.size = size
        self._clock = clock
        self._key_version = key_version
        self._entries: OrderedDict[int, CachedToken] = OrderedDict()
        self._seen: set[int] = set()
        self._version: object = None

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, token: str) -> CachedToken | None:
        """The entry for ``token`` if it is still before its ``exp`` under the current key set.

        The lookup of every request repeating its token: everything it needs is in this one call.
        """
        version = self._key_version()
        if version != self._version:
            self._switch(version)
            return None
        index = hash(token)
        entry = self._entries.get(index)
        if entry is None:
            return None
        # The same signed segments, then the same signature segment: what follows the prefix is
        # the signature only if it digests to the entry's (a token with more segments after the
        # prefix has another last segment, whose digest differs), so no search for the last dot.
        prefix = entry.prefix
        if not token.startswith(prefix):
            return None
        if entry.digest != _sha256(token[len(prefix) :].encode("utf-8", "surrogatepass")).digest():
            return None
        if self._clock() >= entry.expires_at:
            del self._entries[index]
            return None
        self._entries.move_to_end(index)
        return entry

    def admits(self, token: str) -> bool:
        """True on a verified token's second verification (or later); the first is only noted."""
        index = hash(token)
        if index in self._seen:
            self._seen.discard(index)
            return True
        if len(self._seen) >= SEEN_PER_ENTRY * self.size:
            self._seen.clear()
        self._seen.add(index)
        return False

    def put(self, token: str, entry: CachedToken, version: object) -> None:
        """Remember a token verified under key set ``version``; one already past its ``exp`` is not kept."""
        if version != self._version:
            self._switch(version)
        if self._clock() >= entry.expires_at:
            return
        index = hash(token)
        self._entries.pop(index, None)  # another token with the same string hash gives way
        self._entries[index] = entry
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()
        self._seen.clear()

    def _switch(self, version: object) -> None:
        self.clear()
        self._version = version
