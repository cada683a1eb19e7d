"""The interactive API reference at ``/docs``: Swagger UI on the App's ``/openapi.json``, offline.

Every asset comes from an installed package (the ``docs`` extra, ``swagger-ui-bundle-v2``:
Swagger UI 5, the first to read OpenAPI 3.1) and is served by the App itself, so the reference
works without a network and sends nothing to a CDN or an online validator. Assets live under
a path holding a digest of their bytes, so they are cached for a year and a new Swagger UI
(or fw) is fetched at once; the page itself is revalidated on every visit.

``[server] docs`` decides (DESIGN 9.5): set, it is obeyed (``true`` without the extra is a
startup error naming the install); left unset, the reference is on exactly when ``APP_ENV`` is
``dev``, and a development project without the extra gets a page at ``/docs`` naming the install
instead of a startup error.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import importlib.resources
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from fw.core.routes import BaseRoute, Route
from fw.errors import StartupError
from fw.extras import pip_install

DOCS_PATH = "/docs"
ASSETS_PATH = f"{DOCS_PATH}/assets"
INSTALL = pip_install("docs")
#: The first Swagger UI major that renders OpenAPI 3.1.
MIN_MAJOR = 5
#: Served file name -> content type; nothing else under the assets path is answered.
_TYPES = {
    "swagger-ui.css": "text/css; charset=utf-8",
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "favicon-32x32.png": "image/png",
    "favicon-16x16.png": "image/png",
    "fw-docs.js": "text/javascript; charset=utf-8",
    "fw-docs.css": "text/css; charset=utf-8",
}
#: fw's own files among the assets (the rest are Swagger UI's, from the docs extra).
_OWN = {"fw-docs.js": "docs.js", "fw-docs.css": "docs.css"}
_IMMUTABLE = "public, max-age=31536000, immutable"
#: Swagger UI sets inline styles and shows images given as data: URLs; scripts come from here only.
_PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_VERSION = re.compile(r"swagger-ui-(\d+)\.\d+\.\d+")

DocsMode = Literal["off", "on", "if_installed"]


def docs_mode(value: bool, source: str, app_env: str) -> DocsMode:
    """What ``[server] docs`` asks for: obeyed when set by any source; unset, on in ``dev`` only."""
    if source != "default":
        return "on" if value else "off"
    return "if_installed" if app_env == "dev" else "off"


def docs_in_effect(value: bool, source: str, app_env: str) -> tuple[bool, str]:
    """``server.docs`` as the startup summary shows it: whether ``/docs`` serves the reference,
    and why when it was left unset in ``dev`` (the declared ``false`` is not what is served)."""
    if docs_mode(value, source, app_env) != "if_installed":
        return value, source
    if isinstance(swagger_ui_dir(), str):
        return False, f"default (on in APP_ENV=dev, but the docs extra is missing: {INSTALL})"
    return True, "default (on in APP_ENV=dev)"


@dataclass(frozen=True)
class Assets:
    """The files served under ``/docs/assets/<digest>/``, read once."""

    digest: str
    files: dict[str, bytes]


def swagger_ui_dir() -> Path | str:
    """The installed Swagger UI ``dist`` folder, or why it cannot be used."""
    try:
        bundle = importlib.import_module("swagger_ui_bundle")
    except ImportError:
        return f"the API reference at /docs needs the docs extra: {INSTALL}"
    folder = Path(str(bundle.swagger_ui_path))
    version = _VERSION.fullmatch(folder.name)
    if version is None or int(version.group(1)) < MIN_MAJOR:
        return (
            f"the installed swagger_ui_bundle ships {folder.name}, which cannot render OpenAPI 3.1: "
            f"{INSTALL} installs Swagger UI {MIN_MAJOR} (swagger-ui-bundle-v2)"
        )
    return folder


def check_docs(mode: DocsMode) -> None:
    """Refuse to start when the reference was asked for and Swagger UI 5 is not installed."""
    if mode != "on":
        return
    found = swagger_ui_dir()
    if isinstance(found, str):
        raise StartupError("server.docs", True, found)


def load_assets(folder: Path) -> Assets:
    files = {name: (folder / name).read_bytes() for name in _TYPES if name not in _OWN}
    for name, source in _OWN.items():
        files[name] = importlib.resources.files("fw.binding").joinpath(source).read_bytes()
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name])
    return Assets(digest.hexdigest()[:16], files)


def docs_page(title: str, digest: str) -> str:
    """The page: relative URLs, so the App works mounted under any prefix."""
    base = f"{ASSETS_PATH.lstrip('/')}/{digest}"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)} — API reference</title>"
        f"<link rel='stylesheet' href='{base}/swagger-ui.css'>"
        f"<link rel='stylesheet' href='{base}/fw-docs.css'>"
        f"<link rel='icon' type='image/png' sizes='32x32' href='{base}/favicon-32x32.png'>"
        f"<link rel='icon' type='image/png' sizes='16x16' href='{base}/favicon-16x16.png'>"
        "</head><body><main><div id='swagger-ui' data-openapi='openapi.json'></div></main>"
        f"<script src='{base}/swagger-ui-bundle.js'></script>"
        f"<script src='{base}/fw-docs.js'></script></body></html>"
    )


def _missing_page(reason: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>API reference unavailable</title>"
        f"</head><body><h1>API reference unavailable</h1><p>{html.escape(reason)}.</p>"
        "<p>The OpenAPI document itself is served at <a href='openapi.json'>/openapi.json</a>.</p>"
        "</body></html>"
    )


def docs_routes(mode: DocsMode, title: str) -> list[BaseRoute]:
    """``GET /docs`` and its assets for ``mode``; none when it is off."""
    if mode == "off":
        return []
    found = swagger_ui_dir()
    if isinstance(found, str):  # if_installed: check_docs refused "on" already
        page = _missing_page(found)

        async def missing(request: Request) -> Response:
            return HTMLResponse(page, status_code=501, headers={"Cache-Control": "no-store"})

        return [Route(DOCS_PATH, missing, methods=["GET"], name="docs")]
    assets = load_assets(found)
    body = docs_page(title, assets.digest)
    page_headers = {
        "Cache-Control": "no-cache",
        "Content-Security-Policy": _PAGE_POLICY,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }

    async def docs(request: Request) -> Response:
        return HTMLResponse(body, headers=page_headers)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if request.path_params["digest"] != assets.digest or name not in assets.files:
            raise HTTPException(404)  # an old digest too: the page names the current one
        headers = {"Cache-Control": _IMMUTABLE, "X-Content-Type-Options": "nosniff"}
        return Response(assets.files[name], media_type=_TYPES[name], headers=headers)

    return [
        Route(DOCS_PATH, docs, methods=["GET"], name="docs"),
        Route(f"{ASSETS_PATH}/{{digest}}/{{name}}", asset, methods=["GET"], name="docs_asset"),
    ]
