"""The URI a DPoP proof's ``htu`` names, normalised so equal URIs compare equal (RFC 9449 4.3).

A proof names the target URI of its request (RFC 9110 7.1) without query and fragment; the
server compares it with the target URI of the request as received, after RFC 3986 syntax- and
scheme-based normalisation (6.2.2, 6.2.3) of both: lower-case scheme and host, upper-case hex in
percent-encodings, unreserved characters decoded (``%65`` is ``e``), dot segments removed, the
default port and an empty port dropped, an empty path made ``/``. Nothing else is decoded: ``%2F``
stays a different URI from ``/``, and ``%C3%A9`` stays what a request for ``é`` sends.

Printable ASCII that no URI holds but that clients commonly leave unencoded in a path (``|``,
``^``, ``[``, ``]``, ...; WHATWG URLs and httpx do) compares as its percent-encoding, which is
what any server decodes it to, so such a client is not refused for its own URL. Anything else
that is not a URI matches nothing: a space, a control or non-ASCII character (``café``), a
broken ``%``, userinfo, or a scheme other than http(s) normalise to ``None``, never to an
encoded form a lenient parser would guess, so a proof naming the invalid decoded form of a path
is not a proof for the encoded one.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: A path of an absolute URI: segments of pchar (RFC 3986 3.3) separated by ``/``, or the
#: printable ASCII a client may have left unencoded (:data:`_UNENCODED`).
_PATH = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/\"<>\[\\\]^`{|}]|%[0-9A-Fa-f]{2})*")
#: Printable ASCII outside the URI grammar (space, ``%``, ``#`` and ``?`` apart): its encoding.
_UNENCODED = re.compile(r"[\"<>\[\\\]^`{|}]")
#: A host: a registered name (unreserved, sub-delims, percent-encodings) or an IP literal's content.
_HOST = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})+")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_NORMALIZED_PERCENT = re.compile(r"(%[0-9A-F]{2})")
#: Visible ASCII only: the URL parser would drop a tab or a newline silently, not refuse it.
_VISIBLE = re.compile(r"[!-~]*")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_htu(url: str) -> str | None:
    """``scheme://host[:port]/path`` of ``url`` normalised (query and fragment ignored: RFC 9449
    4.3 step 9), or ``None`` when ``url`` is not an http(s) URI of a request target."""
    if not _VISIBLE.fullmatch(url):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or "@" in parts.netloc:
        return None
    if not _HOST.fullmatch(host) or not _PATH.fullmatch(parts.path):
        return None
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    return f"{scheme}://{_normalize_host(host)}{_normalize_path(parts.path)}"


def _decode_unreserved(match: re.Match[str]) -> str:
    char = chr(int(match.group()[1:], 16))
    return char if char in _UNRESERVED else match.group().upper()


def _normalize_encoding(text: str) -> str:
    """Percent-encoding normalisation (RFC 3986 6.2.2.2): unreserved decoded, upper-case hex."""
    return _PERCENT.sub(_decode_unreserved, text) if "%" in text else text


def _normalize_host(host: str) -> str:
    """Encodings normalised, then lower case for all but their (upper-case) hex digits."""
    if "%" not in host:
        return host.lower()
    pieces = _NORMALIZED_PERCENT.split(_normalize_encoding(host))
    return "".join(piece if piece.startswith("%") else piece.lower() for piece in pieces)


def _encode_unencoded(match: re.Match[str]) -> str:
    return f"%{ord(match.group()):02X}"


def _normalize_path(path: str) -> str:
    """The path with its encodings normalised, then its dot segments removed (RFC 3986 5.2.4)."""
    path = _normalize_encoding(_UNENCODED.sub(_encode_unencoded, path))
    if not path:
        return "/"
    if "." not in path:
        return path
    segments = path.split("/")
    kept: list[str] = []
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment in (".", ".."):
            if segment == ".." and len(kept) > 1:
                kept.pop()
            if index == last:
                kept.append("")  # "/a/b/.." is the directory "/a/", not the resource "/a"
            continue
        kept.append(segment)
    return "/".join(kept)
