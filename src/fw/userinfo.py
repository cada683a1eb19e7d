"""The user information of a URL (``user:password@``) is a credential: find it, and mask it.

A DSN, a Redis URL or a DynamoDB endpoint may carry a password, and so may any URL-valued
setting of an application. Everything fw prints (the startup summary, ``fw doctor``, a refusal to
start, a log line) shows such a URL with its user information replaced by ``*****`` and its query
dropped, so it still says where the service is but never how to sign in to it.

A leaf module with no fw imports, so the lowest layers (:mod:`fw.errors`, the configuration
layer) and the stores can all use it.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

MASK = "*****"

#: A URL inside free text: a scheme, ``://`` and everything up to whitespace or a quote.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")


def has_userinfo(text: str) -> bool:
    """``text`` parses as ``scheme://user[:password]@host...``."""
    if "://" not in text or "@" not in text:
        return False
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return bool(parts.scheme) and (parts.username is not None or parts.password is not None)


def has_password(text: str) -> bool:
    """``text`` parses as a URL whose user information includes a password."""
    if not has_userinfo(text):
        return False
    return bool(urlsplit(text).password)


def mask_userinfo(text: str) -> str:
    """Keep scheme, host, port and path; user information becomes ``*****``; no query or fragment.

    An empty text stays empty; text that is not a ``scheme://`` URL, or whose port does not
    parse, is masked whole.
    """
    if text == "":
        return ""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return MASK
    if not parts.scheme or "://" not in text:
        return MASK
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    if parts.username is not None or parts.password is not None:
        netloc = f"{MASK}@{netloc}"
    return f"{parts.scheme}://{netloc}{parts.path}"


def hidden_parts(text: str) -> list[str]:
    """What :func:`mask_userinfo` drops that is a secret: the password and the query (each also
    percent-decoded), non-empty. A redaction that replaces these never hides where the URL points."""
    try:
        parts = urlsplit(text)
        hidden = [parts.password or "", parts.query]
    except ValueError:
        return []
    found = [part for part in hidden if part]
    found += [unquote(part) for part in found if unquote(part) != part]
    return found


def scrub(text: str) -> str:
    """``text`` with every URL in it that carries user information masked (:func:`mask_userinfo`).

    For messages that quote a URL they were given (a refusal, a driver's error): the URL keeps
    saying where, never with which credentials.
    """
    if "@" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda found: _masked(found.group(0)), text)


def _masked(url: str) -> str:
    return mask_userinfo(url) if has_userinfo(url) else url
