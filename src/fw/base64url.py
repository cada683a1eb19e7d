"""fw's one Base64url (RFC 4648 section 5) without padding: the form of credential IDs, PKCE
challenges, ``ath`` and ``jkt`` digests, DPoP nonces, operation IDs and sealed values.

Decoding is strict (no padding, no whitespace, no other alphabet, canonical trailing bits) so that
one byte string has exactly one accepted text form: WebAuthn ``id`` and ``rawId`` can then be
compared as text, and a credential ID cannot be smuggled past a lookup in a second spelling.
Two readers stay apart on purpose: the token core's ``_b64decode`` (bytes in, msgspec's faster
reader, ``binascii.Error`` out) and the sealer's lenient reader of configured secrets and cookies.
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
