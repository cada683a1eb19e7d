"""Optional dependencies: a feature whose library is not installed refuses to start, naming the fix.

The drivers and SDKs only some deployments need (Redis, PostgreSQL, WebAuthn) are extras of the
``fw-web`` distribution, so an application installs what it uses: ``pip install 'fw-web[redis]'``.
The distribution is not called ``fw`` (that name on the package registry belongs to an unrelated
project), so every message naming an install takes the name from :data:`DISTRIBUTION`.
"""

from __future__ import annotations

import importlib

from fw.errors import StartupError

#: The name fw is installed under (``pip install fw-web``); the import package and the command are ``fw``.
DISTRIBUTION = "fw-web"

#: extra -> the module it installs.
EXTRAS = {
    "redis": "redis",
    "postgres": "asyncpg",
    "passkeys": "webauthn",
    "dynamo": "aiobotocore",
    "firestore": "google.cloud.datastore",
    "docs": "swagger_ui_bundle",
}


def pip_install(extra: str) -> str:
    """The command adding ``extra``: ``pip install 'fw-web[redis]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def extra_missing(error: ModuleNotFoundError) -> str | None:
    """The extra whose module ``error`` says is not installed, or ``None`` for any other module."""
    missing = error.name or ""
    for extra, module in EXTRAS.items():
        if missing == module or module.startswith(f"{missing}.") or missing.startswith(f"{module}."):
            return extra
    return None


def require_extra(extra: str, key: str, value: object, what: str) -> None:
    """Raise :class:`fw.StartupError` on ``key`` when ``extra``'s module cannot be imported."""
    try:
        importlib.import_module(EXTRAS[extra])
    except ImportError:
        raise StartupError(key, value, f"{what} needs the {extra} extra: {pip_install(extra)}") from None
