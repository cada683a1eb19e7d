"""Set-Cookie headers for the cookies a browser session owns.

HttpOnly and SameSite=Lax always; Secure everywhere except plain-http loopback development,
where browsers would otherwise drop the cookie.
"""

from __future__ import annotations

from starlette.requests import Request

from fw.auth.browser.redirects import loopback_host_header


def cookie_secure(request: Request) -> bool:
    """Secure everywhere but plain-http loopback development."""
    return not (request.url.scheme == "http" and loopback_host_header(request.headers.get("host", "")))


def set_cookie(name: str, value: str, *, secure: bool, max_age: int | None = None) -> str:
    parts = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


def expire_cookie(name: str, *, secure: bool) -> str:
    return set_cookie(name, "", secure=secure, max_age=0) + "; Expires=Thu, 01 Jan 1970 00:00:00 GMT"
