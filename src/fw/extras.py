"""Optional dependencies: a feature whose library is not installed refuses to start, naming the fix.

The drivers and SDKs only some deployments need (Redis, PostgreSQL, WebAuthn) are extras of the
``fw`` package, so an application installs what it uses: ``pip install 'fw[redis]'``.
"""

from __future__ import annotations

import importlib

from fw.errors import StartupError

#: extra -> the module it installs.
EXTRAS = {
    "redis": "redis",
    "postgres": "asyncpg",
    "passkeys": "webauthn",
    "dynamo": "aiobotocore",
    "firestore": "google.cloud.datastore",
    "docs": "swagger_ui_bundle",
}


def require_extra(extra: str, key: str, value: object, what: str) -> None:
    """Raise :class:`fw.StartupError` on ``key`` when ``extra``'s module cannot be imported."""
    try:
        importlib.import_module(EXTRAS[extra])
    except ImportError:
        raise StartupError(key, value, f"{what} needs the {extra} extra: pip install 'fw[{extra}]'") from None
