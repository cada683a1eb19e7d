"""Set-Cookie headers for the cookies fw sets, and whether they are ``Secure``.

HttpOnly and SameSite=Lax always. Whether a cookie is ``Secure`` is decided once per App where
the configuration says enough: outside ``APP_ENV=dev``, and whenever the App's public address is
https (a browser mode's ``redirect_url``, or every ``auth.passkey.origins`` entry), every cookie
fw sets is ``Secure``. The request cannot be trusted to say so: behind a proxy that terminates
TLS and forwards plain http with an internal Host (and no ``X-Forwarded-Proto``), it looks like
any plain-http request. Only a development App with a plain-http address decides per request:
``Secure`` everywhere except plain-http loopback, where browsers would otherwise drop the cookie.

Where every cookie is ``Secure``, the session cookie is named ``__Host-fw_session``: browsers
accept a ``__Host-`` cookie only with ``Secure``, ``Path=/`` and no ``Domain``, so a page of a
sibling subdomain can neither plant nor shadow a session. A development App keeps ``fw_session``.

Why the request scope carries the policy: every endpoint that sets a cookie (login, callback,
logout, passkey ceremonies, presence, the remembered visitor) runs inside the session middleware
every browser mode installs, which records its mode's policy there first; a request that never
went through it gets the development rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.requests import Request

from fw.auth.browser.redirects import loopback_host_header
from fw.auth.sessions.manager import SESSION_COOKIE
from fw.auth.settings import AuthSettings

#: Where the session middleware records the App's :class:`CookiePolicy` in each request's scope.
POLICY_KEY = "fw.auth.cookies"
#: The prefix browsers enforce ``Secure``, ``Path=/`` and no ``Domain`` on.
HOST_PREFIX = "__Host-"


@dataclass(frozen=True, slots=True)
class CookiePolicy:
    """How one App's cookies are made: always ``Secure`` or per request, and the session's name."""

    #: Every cookie is ``Secure`` whatever the request (outside dev, or an https public address).
    always_secure: bool = False

    @classmethod
    def of(cls, app_env: str, auth: AuthSettings) -> CookiePolicy:
        """The policy for ``APP_ENV`` and a browser mode's settings."""
        return cls(always_secure=app_env != "dev" or public_https(auth))

    @property
    def session(self) -> str:
        """The session cookie's name: ``__Host-fw_session`` when always ``Secure``, else ``fw_session``."""
        return f"{HOST_PREFIX}{SESSION_COOKIE}" if self.always_secure else SESSION_COOKIE

    def secure(self, request: Request) -> bool:
        """``Secure`` for this request: always, or everywhere but plain-http loopback development."""
        if self.always_secure:
            return True
        # The scope's scheme is what ``request.url.scheme`` reads, without building the URL.
        scheme = request.scope.get("scheme", "http")
        return not (scheme == "http" and _loopback_host(request.headers.get("host", "")))


#: Every request of a development App asks this of its Host header; a few hosts ever reach one
#: App, so the answers are kept (bounded: a client sending arbitrary hosts only evicts them).
_loopback_host = functools.lru_cache(maxsize=64)(loopback_host_header)

#: The rule of a development App with a plain-http address (and of a request no middleware saw).
DEVELOPMENT = CookiePolicy()


def public_https(auth: AuthSettings) -> bool:
    """The App's public address is https: a browser mode's ``redirect_url`` is, or every passkey origin.

    Each mode sets only its own table (another mode's is refused at startup), so reading every
    browser mode's address here reads the one the configured mode has.
    """
    if any(_https(url) for url in (auth.oidc.redirect_url, auth.oauth.redirect_url)):
        return True
    origins = auth.passkey.origins
    return bool(origins) and all(_https(origin) for origin in origins)


def _https(url: str) -> bool:
    return urlsplit(url).scheme.lower() == "https"


def cookie_policy(request: Request) -> CookiePolicy:
    """The policy the session middleware recorded for this request's App."""
    found = request.scope.get(POLICY_KEY)
    return found if isinstance(found, CookiePolicy) else DEVELOPMENT


def cookie_secure(request: Request) -> bool:
    """Whether the cookies set in answer to ``request`` carry ``Secure``."""
    return cookie_policy(request).secure(request)


def session_cookie(request: Request) -> str:
    """The name of the session cookie for ``request``'s App (``__Host-fw_session`` or ``fw_session``)."""
    return cookie_policy(request).session


def set_cookie(name: str, value: str, *, secure: bool, max_age: int | None = None) -> str:
    parts = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


def expire_cookie(name: str, *, secure: bool) -> str:
    return set_cookie(name, "", secure=secure, max_age=0) + "; Expires=Thu, 01 Jan 1970 00:00:00 GMT"
