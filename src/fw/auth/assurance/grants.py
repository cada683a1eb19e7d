"""The one use a zero-width window allows, kept where every process sees it: the ceremony store.

``confirmed(timedelta(0))`` and ``max_age = 0`` policies are satisfied once, by the step-up they
asked for. The step-up leaves a random grant ID in the session record and the grant itself in
the ``auth.backend`` ceremony store (put-if-absent); a guard redeems it with the store's
take-once. So of two concurrent requests carrying the same session (even two copies of a
``cookie`` session, which no server can recall) exactly one passes, on every backend.
Only a digest of the ID is a store key: a leaked row cannot be replayed as a session field.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from fw.auth.stores.interfaces import CeremonyStore

#: How long an unused grant waits for the operation it was asked for.
GRANT_LIFETIME = timedelta(minutes=5)


def _key(grant_id: str) -> str:
    return f"assurance:{hashlib.sha256(grant_id.encode()).hexdigest()}"


async def issue(store: CeremonyStore, account_id: str) -> str:
    """A new grant for ``account_id``; returns the ID the session record keeps."""
    while True:
        grant_id = secrets.token_urlsafe(32)
        record = {"account_id": account_id}
        if await store.put(_key(grant_id), record, datetime.now(UTC) + GRANT_LIFETIME):
            return grant_id


async def redeem(store: CeremonyStore, grant_id: str, account_id: str) -> bool:
    """Use the grant once; ``False`` when it is unknown, expired, already used or another account's."""
    if not grant_id or len(grant_id) > 128:
        return False
    record = await store.take(_key(grant_id))
    return record is not None and record.get("account_id") == account_id
