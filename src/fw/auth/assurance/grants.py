"""The one use a zero-width window allows, kept where every process sees it: the ceremony store.

``confirmed(timedelta(0))`` and ``max_age = 0`` policies are satisfied once, by the step-up they
asked for. The step-up leaves a random grant ID in the session record and the grant itself in
the ``auth.backend`` ceremony store (put-if-absent); a guard redeems it with the store's
take-once. So of two concurrent requests carrying the same session (even two copies of a
``cookie`` session, which no server can recall) exactly one passes, on every backend.

A grant is bound to the operation that asked for it: the guard (its requirement, page or API)
and the request it guards (method and path), named by :func:`operation_id`. The guard hands
that ID to the step-up in its login URL, the step-up keeps it in the sealed login attempt, and
the store key is a digest of the grant ID *and* the operation, so a guard of another operation
looks for another key: it finds nothing and leaves the grant for the operation it belongs to.
Only a digest is a store key: a leaked row cannot be replayed as a session field.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, datetime, timedelta

import fw.base64url as base64url
from fw.auth.stores.interfaces import CeremonyStore

#: How long an unused grant waits for the operation it was asked for.
GRANT_LIFETIME = timedelta(minutes=5)
#: The form of an operation ID: 16 bytes of SHA-256, unpadded base64url.
OPERATION_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")


def operation_id(guard: str, method: str, path: str) -> str:
    """The ID of one guarded operation: ``guard`` (the requirement and page/API) on ``method path``.

    Opaque and of fixed length, so it travels in a login URL and a sealed cookie at no cost;
    not secret, since only a step-up (a re-proof by the person) turns it into a grant.
    """
    digest = hashlib.sha256(f"{guard}\n{method.upper()}\n{path}".encode()).digest()[:16]
    return base64url.encode(digest)


def is_operation_id(value: str) -> bool:
    """Whether ``value`` has the form :func:`operation_id` gives (anything else is malformed)."""
    return OPERATION_PATTERN.fullmatch(value) is not None


def _key(grant_id: str, operation: str) -> str:
    bound = f"{grant_id}\n{operation}".encode()
    return f"assurance:{hashlib.sha256(bound).hexdigest()}"


async def issue(store: CeremonyStore, account_id: str, operation: str) -> str:
    """A new grant for ``account_id`` to perform ``operation`` once; returns the ID the session keeps."""
    if not is_operation_id(operation):
        raise ValueError("a grant is issued for one operation (see operation_id)")
    while True:
        grant_id = secrets.token_urlsafe(32)
        record = {"account_id": account_id}
        if await store.put(_key(grant_id, operation), record, datetime.now(UTC) + GRANT_LIFETIME):
            return grant_id


async def redeem(store: CeremonyStore, grant_id: str, account_id: str, operation: str) -> bool:
    """Use the grant once for ``operation``; ``False`` when it is unknown, expired, already used,
    another account's or for another operation (which then keeps it)."""
    if not grant_id or len(grant_id) > 128 or not is_operation_id(operation):
        return False
    record = await store.take(_key(grant_id, operation))
    return record is not None and record.get("account_id") == account_id
