"""The small pieces of HTTP both development providers answer with: pages, OAuth errors, redirects.

Kept in one place so the OpenID provider and the X-shaped stand-in word their refusals and
build their redirects the same way.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import importlib.resources
from urllib.parse import unquote, urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse

import fw.base64url as base64url
from fw.responses import JSONResponse


def s256(verifier: str) -> str:
    """The PKCE ``S256`` challenge of ``verifier`` (RFC 7636)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64url.encode(digest)


def oauth_error(error: str, description: str, status: int = 400) -> JSONResponse:
    """An RFC 6749 error answer from a token endpoint."""
    return JSONResponse(
        {"error": error, "error_description": description},
        status_code=status,
        headers={"Cache-Control": "no-store"},
    )


#: Above every page, so nobody mistakes a development provider for a real sign-in.
BANNER = "Development identity provider — no password is checked"
_STYLE = importlib.resources.files("fw.devidp").joinpath("devidp.css").read_text(encoding="utf-8")


def page(title: str, body: str, footer: str, status: int = 200) -> HTMLResponse:
    """A page under the banner, styled by ``devidp.css``: ``body`` is markup; ``title``, ``footer`` text."""
    return HTMLResponse(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><header class='fw-devidp-banner' role='note'>{html.escape(BANNER)}</header>"
        f"<main><h1>{html.escape(title)}</h1>{body}"
        f"<footer>{html.escape(footer)}</footer></main></body></html>",
        status_code=status,
    )


def append_query(uri: str, params: dict[str, str]) -> str:
    """``uri`` with ``params`` added to its query."""
    separator = "&" if urlsplit(uri).query else "?"
    return f"{uri}{separator}{urlencode(params)}"


def basic_credentials(header: str) -> tuple[str, str] | None:
    """(client id, secret) from an ``Authorization: Basic`` header; ``None`` if it is not one."""
    if not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:], validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    raw_id, colon, raw_secret = decoded.partition(":")
    if not colon:
        return None
    return unquote(raw_id), unquote(raw_secret)


async def request_params(request: Request) -> dict[str, str]:
    """An authorization request's parameters: the query of a GET, the form of a POST (the picker)."""
    if request.method == "POST":
        return {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    return dict(request.query_params)


def picker_form(action: str, params: dict[str, str], choices: list[tuple[str, str]]) -> str:
    """The user picker: the request's own parameters carried along, one button per (value, label)
    posting ``user``, and a Cancel button posting ``deny=1``."""
    hidden = "".join(
        f"<input type='hidden' name='{html.escape(k)}' value='{html.escape(v)}'>"
        for k, v in params.items()
        if k not in ("user", "deny")
    )
    buttons = "".join(
        f"<li><button type='submit' name='user' value='{html.escape(value)}'>"
        f"{html.escape(label)}</button></li>"
        for value, label in choices
    )
    return (
        f"<form method='post' action='{html.escape(action)}'>{hidden}<ul>{buttons}</ul>"
        "<button type='submit' name='deny' value='1'>Cancel</button></form>"
    )
