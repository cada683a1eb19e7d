"""fw's problems as small HTML pages for people, JSON problem documents for programs.

A browser navigating to a page that fails (a sign-in the provider cancelled, a 404, a store that
cannot answer) should show a person a page, not an RFC 9457 document. Every problem fw answers
is rendered once, as ``application/problem+json`` (:mod:`fw.problems`); the App wraps ``send``
with :func:`for_people` when the request's ``Accept`` prefers ``text/html`` to JSON, and the
wrapper turns that one document into a page with the same status and headers. Requests that do
not prefer HTML (programs, ``fetch`` with its default ``*/*``) pass through untouched, without
a wrapper: the check is one look at the ``Accept`` header.

The page names the problem's title and detail (escaped), lists rejected fields, and links back
to ``/``, and to the sign-in page (:data:`LOGIN_PATH_KEY`, recorded by the browser modes) when
signing in again is the way on. With the request observer on it shows the request ID, which the
JSON document carries as its ``request_id`` member.
"""

from __future__ import annotations

import html
from urllib.parse import quote, urlencode

import msgspec
from starlette.types import Message, Scope, Send

from fw.page_layout import layout
from fw.problems import PROBLEM_MEDIA_TYPE

#: The scope key where a browser mode records its ``auth.login_path`` for the pages' links.
LOGIN_PATH_KEY = "fw.auth.login_path"
#: The scope key where the request observer keeps the request ID (:mod:`fw.operations.observer`).
REQUEST_ID_KEY = "fw.request_id"
_PROBLEM_TYPE = PROBLEM_MEDIA_TYPE.encode("latin-1")
_HTML_TYPE = b"text/html; charset=utf-8"
_JSON_TYPES = ("application/problem+json", "application/json")
_HTML = "text/html"


def _accepted(accept: str, media_types: tuple[str, ...]) -> tuple[float, int]:
    """The quality ``accept`` gives the best of ``media_types``, and how specific its range was
    (2 exact, 1 ``type/*``, 0 ``*/*``, -1 not accepted): RFC 9110 12.5.1, the most specific range
    matching a type decides its quality."""
    best: tuple[float, int] = (0.0, -1)
    for media_type in media_types:
        main = media_type.partition("/")[0]
        found: tuple[float, int] = (0.0, -1)
        for part in accept.split(","):
            kind, *params = part.split(";")
            kind = kind.strip().lower()
            if kind == media_type:
                specific = 2
            elif kind == f"{main}/*":
                specific = 1
            elif kind == "*/*":
                specific = 0
            else:
                continue
            quality = 1.0
            for param in params:
                name, _, value = param.partition("=")
                if name.strip().lower() == "q":
                    try:
                        quality = min(max(float(value.strip()), 0.0), 1.0)
                    except ValueError:
                        quality = 0.0
            if specific > found[1]:
                found = (quality, specific)
        if found[1] >= 0 and found[0] > 0 and found > best:
            best = found
    return best


def prefers_html(accept: str) -> bool:
    """True when ``accept`` prefers ``text/html`` to JSON.

    A higher quality for HTML wins; at equal quality HTML wins only when named more specifically
    than JSON (``text/html,*/*`` is a browser's; ``*/*`` alone prefers nothing).
    """
    accept = accept.lower()
    if "html" not in accept and "text/*" not in accept:
        return False
    page = _accepted(accept, (_HTML,))
    if page[1] < 0:
        return False
    return page > _accepted(accept, _JSON_TYPES)


def for_people(scope: Scope, send: Send) -> Send:
    """``send`` itself, or, when the request prefers HTML, ``send`` turning problems into pages."""
    for name, value in scope["headers"]:
        if name == b"accept":
            return for_people_accepting(value, scope, send)
    return send


def for_people_accepting(accept: bytes, scope: Scope, send: Send) -> Send:
    """:func:`for_people` for a request whose first ``Accept`` header is ``accept``."""
    lowered = accept.lower()
    if b"html" not in lowered and b"text/*" not in lowered:
        return send
    if not prefers_html(accept.decode("latin-1")):
        return send
    start: Message | None = None
    body = bytearray()

    async def send_page(message: Message) -> None:
        nonlocal start
        if start is None and message["type"] == "http.response.start":
            if _is_problem(message):
                start = message
                return
        elif start is not None and message["type"] == "http.response.body":
            body.extend(message.get("body", b""))
            if message.get("more_body", False):
                return
            page = render_page(_document(bytes(body)), scope)
            headers = [
                (name, value)
                for name, value in start.get("headers", [])
                if name.lower() not in (b"content-type", b"content-length")
            ]
            headers += [(b"content-type", _HTML_TYPE), (b"content-length", str(len(page)).encode())]
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": page if scope["method"] != "HEAD" else b""})
            return
        await send(message)

    return send_page


def _is_problem(start: Message) -> bool:
    for name, value in start.get("headers", []):
        if name.lower() == b"content-type":
            media_type: bytes = value.partition(b";")[0].strip().lower()
            return media_type == _PROBLEM_TYPE
    return False


def _document(body: bytes) -> dict[str, object]:
    try:
        document = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return {}
    return document if isinstance(document, dict) else {}


def render_page(document: dict[str, object], scope: Scope) -> bytes:
    """The page for one problem document (anything it lacks is left out)."""
    status = document.get("status")
    title = str(document.get("title") or "Something went wrong")
    detail = str(document.get("detail") or "")
    parts = [f"<h1>{html.escape(title)}</h1>"]
    if isinstance(status, int):
        parts.append(f'<p class="status">Error {status}</p>')
    if detail and detail != title:
        parts.append(f"<p>{html.escape(_sentence(detail))}</p>")
    errors = document.get("errors")
    if isinstance(errors, list) and errors:
        parts.append("<ul>")
        for error in errors:
            if isinstance(error, dict):
                where = html.escape(str(error.get("field", "")))
                parts.append(f"<li><code>{where}</code>: {html.escape(str(error.get('message', '')))}</li>")
        parts.append("</ul>")
    parts.append('<nav aria-label="Where next"><ul>')
    login = scope.get(LOGIN_PATH_KEY)
    if isinstance(login, str) and (status == 401 or title == "Sign-in failed"):
        target = login
        if status == 401 and scope.get("method") == "GET":
            target = f"{login}?{urlencode({'next': scope['path']}, quote_via=quote)}"
        parts.append(f'<li><a href="{html.escape(target)}">Sign in</a></li>')
    parts.append('<li><a href="/">Go to the home page</a></li></ul></nav>')
    request_id = scope.get(REQUEST_ID_KEY)
    if isinstance(request_id, str):  # what a person quotes when reporting the error
        parts.append(f'<p class="status">Request ID: <code>{html.escape(request_id)}</code></p>')
    return layout(title, "".join(parts))


def _sentence(text: str) -> str:
    """A problem's detail, written for a person: capital first letter, final full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."
