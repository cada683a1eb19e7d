"""What each fuzz target feeds to fw, and what counts as a crash.

Every target takes raw bytes and raises only when fw misbehaves: an exception other than the
rejection the parser documents, a 5xx answer, or a result that breaks the parser's own promise
(a return path that could leave the site). The same functions run under atheris (``run.py``)
and replay the committed corpus inside pytest.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

Target = Callable[[bytes], None]


class Misbehaved(AssertionError):
    """fw answered an input in a way no input may cause."""


# The binder runtime, through real Apps with generated binders (JSON, form, multipart, CBOR, query).

ROUTES: list[tuple[str, str, str]] = [
    ("bind", "POST", "/sources/7"),
    ("bind", "POST", "/scalars"),
    ("bind", "POST", "/lists"),
    ("bind", "POST", "/nested"),
    ("bind", "POST", "/upload"),
    ("bind", "POST", "/rest"),
    ("bind", "POST", "/raw-rest"),
    ("bind", "POST", "/rules"),
    ("bind", "POST", "/defaults"),
    ("bind", "GET", "/colour"),
    ("bind", "GET", "/plain"),
    ("bind", "POST", "/tree"),
    ("bind", "PUT", "/profiles/u1"),
    ("bind", "GET", "/orgs/o1/greeting"),
    ("bind", "POST", "/wide"),
    ("bind", "GET", "/untyped"),
    ("cbor", "POST", "/shapes"),
    ("cbor", "POST", "/nodes"),
]
BOUNDARY = "fuzzboundary"
CONTENT_TYPES: list[str | None] = [
    "application/json",
    "application/x-www-form-urlencoded",
    f"multipart/form-data; boundary={BOUNDARY}",
    "application/cbor",
    "text/plain",
    None,
    "application/json; charset=latin-1",
    "multipart/form-data",
]


def binder_input(
    route: int, content_type: int, query: bytes, body: bytes, headers: tuple[bytes, ...] = ()
) -> bytes:
    """The byte layout the binder target reads: a route byte, a content-type byte, the query
    string, one ``name: value`` line per extra header, a blank line, the body."""
    return bytes([route, content_type]) + b"\n".join((query, *headers)) + b"\n\n" + body


_apps: dict[str, Any] = {}
_loop: asyncio.AbstractEventLoop | None = None


def _app(name: str) -> Any:
    if not _apps:
        from binding.bindapp.handlers import app as bind
        from binding.cborapp.handlers import app as cbor

        _apps.update(bind=bind, cbor=cbor)
    return _apps[name]


async def _call(app: Any, method: str, path: str, headers: list[tuple[bytes, bytes]], query: bytes,
                body: bytes) -> tuple[int, bytes]:  # fmt: skip
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    chunks = [body[i : i + 4096] for i in range(0, len(body), 4096)] or [b""]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if chunks:
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return int(start["status"]), content


def fuzz_binders(data: bytes) -> None:
    global _loop
    if len(data) < 2:
        return
    app_name, method, path = ROUTES[data[0] % len(ROUTES)]
    content_type = CONTENT_TYPES[data[1] % len(CONTENT_TYPES)]
    head, _, body = data[2:].partition(b"\n\n")
    query, *lines = head.split(b"\n")
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-length", str(len(body)).encode())]
    for line in lines:
        name, _, value = line.partition(b":")
        headers.append((name.strip().lower(), value.strip()))
    if content_type is not None:
        headers.append((b"content-type", content_type.encode()))
    if _loop is None:
        _loop = asyncio.new_event_loop()
    status, content = _loop.run_until_complete(_call(_app(app_name), method, path, headers, query, body))
    if status >= 500:
        raise Misbehaved(f"{method} {path} answered {status}: {content[:300]!r}")


# The TOML subset of the configuration file layer.


def fuzz_toml(data: bytes) -> None:
    from fw.configuration.tomlfile import parse_file
    from fw.errors import ConfigError

    text = data.decode("utf-8", "replace")
    try:
        parse_file(text, "fuzz.toml", {"HOME": "/home/fuzz", "EMPTY": ""})
    except ConfigError as error:
        if "fuzz.toml" not in error.source:
            raise Misbehaved(f"a TOML error does not name the file: {error.source!r}") from None


# The Go duration parser.


def fuzz_duration(data: bytes) -> None:
    from fw.configuration.duration import DurationError, format_duration, parse_duration

    text = data.decode("utf-8", "replace")
    try:
        value = parse_duration(text)
    except DurationError:
        return
    again = parse_duration(format_duration(value))
    if again != value:
        raise Misbehaved(f"{text!r} -> {value!r} -> {format_duration(value)!r} -> {again!r}")


# The compact JWS parser every token goes through.

_verifier: Any = None
_key: Any = None


def fuzz_jwt(data: bytes) -> None:
    global _verifier, _key
    from fw.auth.tokens.errors import TokenRejected
    from fw.auth.tokens.jws import JwsVerifier

    if _verifier is None:
        from fw.testing.issuer import generate_key

        _verifier = JwsVerifier(["RS256", "ES256", "EdDSA"])
        _key = generate_key("RS256", "fuzz")
    token = data.decode("latin-1")
    try:
        jws = _verifier.parse(token)
        _verifier.claims(jws, _key)
    except TokenRejected:
        return
    raise Misbehaved(f"an input no key signed was accepted: {token[:200]!r}")


# The return-path check behind ?next=.


def _could_leave(text: str) -> bool:
    if not text.startswith("/") or text.startswith(("//", "/\\")):
        return True
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F or ch == "\\" for ch in text):
        return True
    parts = urlsplit(text)
    return bool(parts.scheme or parts.netloc)


def fuzz_next(data: bytes) -> None:
    from fw.auth.browser.redirects import safe_return_path

    text = data.decode("utf-8", "replace")
    kept = safe_return_path(text)
    if kept is None:
        return
    if kept != text:
        raise Misbehaved(f"a return path was rewritten: {text!r} -> {kept!r}")
    decoded = text
    for _ in range(4):
        if _could_leave(decoded):
            raise Misbehaved(f"{text!r} was kept but reads as another origin once decoded: {decoded!r}")
        decoded = unquote(decoded)


TARGETS: dict[str, Target] = {
    "binders": fuzz_binders,
    "toml": fuzz_toml,
    "duration": fuzz_duration,
    "jwt": fuzz_jwt,
    "next": fuzz_next,
}
CORPUS = Path(__file__).resolve().parent / "corpus"
