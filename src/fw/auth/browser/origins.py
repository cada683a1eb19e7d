"""Where the provider sends the browser back, and which origins count as this application's own.

The redirect URL is the configured one or, in loopback development only, one derived from the
request. The public origin is that of a configured absolute redirect URL: behind a proxy that
terminates TLS the request itself looks like plain http. A state-changing POST coming from a
page of another origin is refused before it changes anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.requests import Request

from fw.auth.browser.redirects import loopback_host_header
from fw.problems import Problem


@dataclass(frozen=True, slots=True)
class Origins:
    """One browser mode's redirect settings; ``key`` names ``redirect_url`` in messages."""

    key: str
    redirect_url: str
    callback_path: str
    allow_loopback_http: bool

    def redirect_uri_for(self, request: Request) -> str:
        """The configured redirect URL or, in loopback development, one derived from the request."""
        configured = self.redirect_url
        if configured and not configured.startswith("/"):
            return configured
        host = request.headers.get("host", "")
        if not (self.allow_loopback_http and loopback_host_header(host)):
            raise Problem(
                f"{self.key} is not set and this request does not come from a loopback origin",
                status=400,
                code="login_unavailable",
            )
        return f"{request.url.scheme}://{host}{configured or self.callback_path}"

    def public_origin(self, request: Request) -> str:
        """The origin browsers use: that of the configured ``redirect_url``, else the request's."""
        configured = self.redirect_url
        if configured and not configured.startswith("/"):
            parts = urlsplit(configured)
            return f"{parts.scheme}://{parts.netloc}"
        return f"{request.url.scheme}://{request.headers.get('host', '')}"

    def cross_origin(self, request: Request) -> bool:
        """Whether a POST comes from a page of another origin.

        ``Origin`` decides when present (``null``, sent from sandboxed or privacy-sensitive
        contexts, is not ours either); without it, ``Referer`` decides; without both (old
        browsers, non-browser clients) the ``SameSite=Lax`` session cookie is the protection,
        as a cross-site POST does not carry it.
        """
        if request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return True
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        allowed = {own.lower(), self.public_origin(request).lower()}
        origin = request.headers.get("origin")
        if origin is not None:
            return origin.lower() not in allowed
        referer = request.headers.get("referer")
        if referer:
            try:
                parts = urlsplit(referer)
            except ValueError:
                return True
            return f"{parts.scheme}://{parts.netloc}".lower() not in allowed
        return False
