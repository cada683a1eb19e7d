"""Base64url without padding, the encoding WebAuthn Level 3 ``toJSON()`` writes for every binary.

Decoding is strict (no padding, no whitespace, no other alphabet, canonical trailing bits) so that
one byte string has exactly one accepted text form: ``id`` and ``rawId`` can then be compared as
text, and a credential ID cannot be smuggled past a lookup in a second spelling.
"""

from __future__ import annotations

import base64
import re

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")


def encode(data: bytes) -> str:
    """Bytes as unpadded Base64url text."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode(text: str) -> bytes:
    """Unpadded Base64url text as bytes; ``ValueError`` for anything that is not its one spelling."""
    if not _ALPHABET.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not unpadded Base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if encode(data) != text:
        raise ValueError("not canonical Base64url (stray trailing bits)")
    return data
