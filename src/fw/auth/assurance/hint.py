"""The remembered last visitor as handlers see it: :func:`remembered` and :func:`mask_identifier`.

With ``[auth.assurance.hint] enabled = true`` the end of a session leaves a sealed note of who
it was (the ``identified`` state of the spec): a login page can greet "a•••••@example.com at
https://id.example" instead of a blank form. The note never reaches a handler unmasked, because
a login screen is shown to whoever stands at the browser next; the issuer cannot be masked, so
whether anything is remembered at all is decided by ``enabled`` and the lifetimes.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import HTTPConnection

#: Where the session middleware leaves the note it read for this request.
REMEMBERED_KEY = "fw.auth.remembered"
#: Stands for the hidden part of an identifier: always five, so the length is not revealed either.
BULLETS = "\u2022" * 5


@dataclass(frozen=True, slots=True)
class RememberedVisitor:
    """Who used this browser last: the issuer that signed them in and their masked identifier."""

    issuer: str
    masked_identifier: str


def mask_identifier(text: str) -> str:
    """An identifier fit for a login screen: ``"alice@example.com"`` -> ``"a•••••@example.com"``.

    The first character and, for an address, the domain after the last ``@`` stay; five bullets
    replace the rest whatever its length. A local part of one character shows none of it
    (``"a@example.com"`` -> ``"•••••@example.com"``, ``"a"`` -> ``"•••••"``), so the whole of it
    is never revealed; an identifier without a domain keeps only its first character
    (``"alice"`` -> ``"a•••••"``); an empty identifier stays empty.
    """
    text = text.strip()
    if not text:
        return ""
    local, at, domain = text.rpartition("@")
    if not at or not domain:
        local, domain = text, ""
    shown = local[0] if len(local) > 1 else ""
    return f"{shown}{BULLETS}@{domain}" if domain else f"{shown}{BULLETS}"


def remembered(request: HTTPConnection) -> RememberedVisitor | None:
    """The last visitor this browser remembers, or ``None``.

    ``None`` unless ``[auth.assurance.hint]`` is enabled (with a ``ttl`` above ``0s``) and the
    browser holds a note that opens, was sealed by this application and has not expired; a
    tampered, foreign or expired note is ignored (and dropped).
    """
    found = request.scope.get(REMEMBERED_KEY)
    return found if isinstance(found, RememberedVisitor) else None
