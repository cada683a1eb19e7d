"""Where a browser may be sent after login: only same-site, root-relative paths.

``?next=`` is attacker-controlled, so anything a browser could read as another origin is refused
rather than repaired: ``//host``, ``/\\host``, schemes, control characters, and their
percent-encoded forms (some routers and browsers decode once more before resolving). Paths whose
resolution differs from their text are refused too: an empty segment (``/a//b``) or a dot
segment (``/./``, ``/%2e%2e/``) could become ``//host`` after a later normalization or a
trailing-slash redirect elsewhere in the stack; no real page needs them as a return path.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from fw.auth.tokens.urls import is_loopback_host

_MAX_LENGTH = 2048


def safe_return_path(value: str | None) -> str | None:
    """``value`` when it is a safe root-relative path (with optional query), else ``None``."""
    if not value or len(value) > _MAX_LENGTH:
        return None
    decoded = value
    for _ in range(3):  # look through repeated encodings too
        if not _plain_path(decoded):
            return None
        again = unquote(decoded)
        if again == decoded:
            break
        decoded = again
    else:
        return None
    return value


def _plain_path(text: str) -> bool:
    if not text.startswith("/") or text.startswith(("//", "/\\")):
        return False
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F or ch == "\\" for ch in text):
        return False
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    if parts.scheme or parts.netloc:
        return False
    segments = parts.path.split("/")[1:]
    # "/a/" ends in one empty segment (a directory); any other empty segment is "//".
    inner = segments[:-1] if segments and segments[-1] == "" else segments
    return all(segment not in ("", ".", "..") for segment in inner)


def loopback_host_header(host_header: str) -> bool:
    """The request's Host names localhost, ``*.localhost``, 127.0.0.1 or [::1] (any port)."""
    if not host_header:
        return False
    if host_header.startswith("["):
        host = host_header[1 : host_header.find("]")] if "]" in host_header else ""
    else:
        host = host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header
    return bool(host) and is_loopback_host(host)
