"""Each DPoP proof is used once (RFC 9449 section 11.1): the ``jti`` values already seen.

:class:`SeenProofs` is the in-process record every server keeps; a shared store (a take-once
record in the ``auth.backend`` store, see the ``jwt_only`` mode) extends it across processes.
Entries live as long as a proof with that ``jti`` could still be accepted.
"""

from __future__ import annotations

import heapq
import time


class SeenProofs:
    """A bounded set of (key, expiry) pairs; the oldest-expiring entries make room when full."""

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._expiry: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []

    def first_use(self, key: str, expires_at: float, *, now: float | None = None) -> bool:
        """Record ``key``; ``False`` when it was recorded before and has not expired."""
        moment = time.time() if now is None else now
        self._drop_expired(moment)
        known = self._expiry.get(key)
        if known is not None and known > moment:
            return False
        while len(self._expiry) >= self.capacity and self._heap:
            _, oldest = heapq.heappop(self._heap)
            self._expiry.pop(oldest, None)
        self._expiry[key] = expires_at
        heapq.heappush(self._heap, (expires_at, key))
        return True

    def _drop_expired(self, now: float) -> None:
        while self._heap and self._heap[0][0] <= now:
            expiry, key = heapq.heappop(self._heap)
            if self._expiry.get(key) == expiry:
                del self._expiry[key]

    def __len__(self) -> int:
        return len(self._expiry)
