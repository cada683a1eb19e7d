"""URL facts the trust decisions rest on: is a host loopback, do two URLs share an origin, may a
URL carry an issuer's metadata and keys."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback_host(host: str | None) -> bool:
    """``localhost``, ``*.localhost``, 127.0.0.0/8 and ``::1`` never leave the machine.

    Brackets around an IPv6 literal and the trailing dot of a fully qualified name are ignored.
    """
    if not host:
        return False
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the default port filled in, for same-origin comparison."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"https": 443, "http": 80}.get(scheme)
    return scheme, (parts.hostname or "").lower(), port


def same_origin(a: str, b: str) -> bool:
    return origin(a) == origin(b)


def transport_problem(url: str, *, allow_loopback_http: bool) -> str | None:
    """Why ``url`` may not name an issuer or carry its keys or metadata, or ``None`` when it may.

    https is required; plain http is tolerated only for a loopback host and only when the
    deployment said so with ``allow_loopback_http``. The same rule holds for a bearer issuer,
    an OpenID provider and the URLs their metadata names.
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "must be an absolute https URL"
    if parts.username or parts.password:
        return "must not carry user information"
    if parts.scheme == "http":
        if not is_loopback_host(parts.hostname):
            return "must be https (plain http is only allowed for a loopback development issuer)"
        if not allow_loopback_http:
            return "is plain http on loopback; set allow_loopback_http = true for local development"
    return None
