"""A passkey credential as the flat fields one row or entity holds, for every engine that stores it.

The credential ID becomes its unpadded base64url text (a primary key or key name), times are
aware UTC, transports one space-separated string, so no engine needs a list type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import fw.base64url as base64url
from fw.auth.stores.records import PasskeyCredential


def credential_key(credential_id: bytes) -> str:
    return base64url.encode(credential_id)


def credential_fields(credential: PasskeyCredential) -> dict[str, Any]:
    return {
        "credential_id": credential_key(credential.credential_id),
        "account_id": credential.account_id,
        "public_key": credential.public_key,
        "sign_count": credential.sign_count,
        "user_handle": credential.user_handle,
        "transports": " ".join(credential.transports),
        "backup_eligible": credential.backup_eligible,
        "backed_up": credential.backed_up,
        "created_at": credential.created_at.astimezone(UTC),
        "last_used_at": credential.last_used_at.astimezone(UTC) if credential.last_used_at else None,
    }


def credential_from(fields: Mapping[Any, Any], utc: Callable[[Any], datetime]) -> PasskeyCredential:
    """The credential :func:`credential_fields` flattened; ``utc`` reads a stored time back."""
    key = fields["credential_id"]
    used = fields["last_used_at"]
    return PasskeyCredential(
        credential_id=base64url.decode(key),
        account_id=fields["account_id"],
        public_key=bytes(fields["public_key"]),
        sign_count=int(fields["sign_count"]),
        user_handle=bytes(fields["user_handle"]),
        created_at=utc(fields["created_at"]),
        transports=tuple(fields["transports"].split()),
        backup_eligible=bool(fields["backup_eligible"]),
        backed_up=bool(fields["backed_up"]),
        last_used_at=utc(used) if used is not None else None,
    )
