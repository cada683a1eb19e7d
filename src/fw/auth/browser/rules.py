"""Startup rules and advisories every browser mode shares: sessions, stores, the redirect URL.

Each browser mode calls these on its own table (``[auth.oidc]``, ``[auth.oauth]``...), so a
redirect URL or a session lifetime is judged the same whichever mode signs people in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from fw.auth.assurance.hint_rules import check_hint
from fw.auth.assurance.presence import check_presence
from fw.auth.browser.redirects import loopback_host_header
from fw.auth.sessions.settings import SessionSettings
from fw.auth.settings import AuthSettings
from fw.auth.stores.select import check_session_backend
from fw.configuration.advisory import Advisory
from fw.configuration.duration import format_duration
from fw.errors import StartupError


def check_stores(auth: AuthSettings, session: SessionSettings) -> None:
    """A browser mode keeps sessions in a store fw can serve (``auth.backend`` is a shared rule)."""
    if not session.enabled:
        raise StartupError(
            "session.enabled", False, "browser login needs sessions; set session.enabled = true"
        )
    check_session_backend(session.backend)


def check_redirect_url(key: str, url: str, loopback_dev: bool) -> None:
    """An absolute https URL registered at the provider; derived from the request only in loopback dev."""
    if not url or url.startswith("/"):
        if not loopback_dev:
            raise StartupError(
                key,
                url,
                "set the absolute callback URL registered at the provider (https://host/auth/callback); "
                "a request-derived URL is only for loopback development with allow_loopback_http = true",
            )
        if url and "//" in url:
            raise StartupError(key, url, "a root path must not contain //")
        return
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise StartupError(key, url, "must be an absolute URL such as https://host/auth/callback")
    if parts.scheme == "http" and not (loopback_dev and loopback_host_header(parts.netloc)):
        raise StartupError(key, url, "must be https outside loopback development")


def check_session_lifetimes(auth: AuthSettings) -> None:
    """``[auth.session]``: a positive lifetime, an idle timeout of 0s (off) or more."""
    if auth.session.ttl.total_seconds() <= 0:
        raise StartupError(
            "auth.session.ttl", format_duration(auth.session.ttl), "must be a positive duration such as 24h"
        )
    if auth.session.idle_timeout.total_seconds() < 0:
        raise StartupError(
            "auth.session.idle_timeout", format_duration(auth.session.idle_timeout), "use 0s (off) or more"
        )


def check_assurance(auth: AuthSettings) -> None:
    """``[auth.assurance.presence]`` and ``[auth.assurance.hint]``, judged alike in every browser mode
    (the hint is where ``auth.shared_device`` is refused too: a shared terminal remembers nobody)."""
    check_presence(auth.assurance.presence)
    check_hint(auth)


def redirect_url_advisories(table: str, values: Mapping[str, Any], app_env: str) -> list[Advisory]:
    """Outside dev, a browser mode's ``redirect_url`` must be the absolute URL registered at the provider.

    Startup refuses it too, unless loopback development allows a request-derived URL; the
    advisory says so before a deployment is attempted.
    """
    if app_env == "dev":
        return []
    key = f"{table}.redirect_url"
    url = str(values.get(key, ""))
    parts = urlsplit(url)
    if not url:
        return [
            Advisory(
                "error",
                key,
                f"{key} is empty: outside dev set the absolute callback URL registered at the "
                "provider (https://host/auth/callback)",
            )
        ]
    if not parts.scheme or not parts.netloc:
        return [
            Advisory(
                "error",
                key,
                f"{key} = {url!r} is path-only: outside dev it must be an absolute URL (https://host/auth/callback)",
            )
        ]
    return []
