"""The marks a session carries so a provider can end it from the back channel.

A back-channel logout names a provider session (``iss`` and ``sid``) or a person (``iss`` and
``sub``), never a cookie. At sign-in the session record lists a digest of each; the store
indexes the digests (:meth:`~fw.auth.stores.interfaces.SessionStore.delete_marked`), and the
logout endpoint computes the same digest to destroy every session it names. Digests keep the
index keys short, free of characters a store may not allow, and unguessable from outside.
"""

from __future__ import annotations

import hashlib


def _mark(kind: str, issuer: str, value: str) -> str:
    # NUL cannot occur in an issuer URL or a JSON string claim fw accepts: the parts cannot run together.
    material = "\0".join((kind, issuer.rstrip("/"), value)).encode("utf-8")
    return hashlib.sha256(material).hexdigest()


def provider_session_mark(issuer: str, sid: str) -> str:
    """The mark of every session started from one provider session (OIDC ``sid``)."""
    return _mark("sid", issuer, sid)


def provider_subject_mark(issuer: str, subject: str) -> str:
    """The mark of every session of one person at one provider (OIDC ``sub``)."""
    return _mark("sub", issuer, subject)


def provider_marks(issuer: str, claims: dict[str, object]) -> tuple[str, ...]:
    """The marks of a session signed in with these verified ID-token claims."""
    marks = []
    sub, sid = claims.get("sub"), claims.get("sid")
    if isinstance(sub, str) and sub:
        marks.append(provider_subject_mark(issuer, sub))
    if isinstance(sid, str) and sid:
        marks.append(provider_session_mark(issuer, sid))
    return tuple(marks)
