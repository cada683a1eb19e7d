"""What the facade (:mod:`fw`) registers for authentication, importing no auth code until used.

``import fw`` must work with the base dependencies alone and load no store, no auth mode and no
optional SDK (DESIGN 10.1), yet every App composes authentication and every configuration parse
needs auth's summary filter and advisories. So the facade registers the small callables here:
the App's extension factory and the OpenAPI security provider import the mode registry, the
stores and the protocol code only when the parsed configuration turns authentication on, and the
configuration hooks (:mod:`fw.auth.advisories`) only when the values they judge need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fw.auth import advisories
from fw.auth.settings import AuthSettings
from fw.configuration import bound
from fw.extension import register_extension, register_openapi_security

if TYPE_CHECKING:
    from fw.extension import Extension, OpenApiSecurity


def _enabled(app: object) -> bool:
    """``auth.enabled`` of ``app``'s configuration (off when fw's tables are not registered)."""
    try:
        return bound(app).config(AuthSettings).enabled
    except LookupError:
        return False


def extension(app: object) -> Extension | None:
    """The App's auth factory: ``None`` while auth is off, else :func:`fw.auth.plugin.extension`'s."""
    if not _enabled(app):
        return None
    from fw.auth.plugin import extension as auth_extension

    return auth_extension(app)


def security(app: object) -> OpenApiSecurity | None:
    """How auth guards ``app`` in the OpenAPI document: :func:`fw.auth.openapi.security`."""
    if not _enabled(app):
        return None
    from fw.auth.openapi import security as auth_security

    return auth_security(app)


def register() -> None:
    """Compose authentication into every App and tell the configuration layer about it."""
    register_extension(extension)
    register_openapi_security(security)
    advisories.register()
