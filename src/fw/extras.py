"""Optional dependencies: a feature whose library is not installed refuses to start, naming the fix.

The drivers and SDKs only some deployments need (Redis, PostgreSQL, WebAuthn) are extras of the
``fw-web`` distribution, so an application installs what it uses: ``pip install 'fw-web[redis]'``.
The distribution is not called ``fw`` (that name on the package registry belongs to an unrelated
project), so every message naming an install takes the name from :data:`DISTRIBUTION`.

The extras of fw's layers are listed here; each store engine declares its own (``redis``,
``dynamo``, ``firestore``) and the store registry adds them with :func:`register_extras` when
it registers the engine (:mod:`fw.auth.stores.registry`), so no engine is named here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from fw.errors import StartupError

#: The name fw is installed under (``pip install fw-web``); the import package and the command are ``fw``.
DISTRIBUTION = "fw-web"

#: extra -> the module it installs: fw's own layers' (the relational layer's PostgreSQL driver,
#: passkeys, the API reference page, metrics and tracing), then each registered store engine's.
_extras: dict[str, str] = {
    "postgres": "asyncpg",
    "passkeys": "webauthn",
    "docs": "swagger_ui_bundle",
    "metrics": "prometheus_client",
    "otel": "opentelemetry.sdk",
}


def register_extras(extras: Mapping[str, str]) -> None:
    """Know each ``extra -> module`` of ``extras`` (a store engine's); the same pair twice is harmless."""
    for extra, module in extras.items():
        known = _extras.get(extra)
        if known is not None and known != module:
            raise RuntimeError(f"extra {extra!r} installs {known!r}, not {module!r}")
        _extras[extra] = module


def extras() -> dict[str, str]:
    """Every extra known so far -> the module it installs."""
    return dict(_extras)


def __getattr__(name: str) -> Any:
    """``EXTRAS``: every extra, the store engines' included.

    The store registry imports this module to add its engines' extras, so it is imported here by
    name, on first use of ``EXTRAS`` only (``import fw`` loads no store code, DESIGN 10.1).
    """
    if name == "EXTRAS":
        importlib.import_module("fw.auth.stores.registry")
        return extras()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pip_install(extra: str) -> str:
    """The command adding ``extra``: ``pip install 'fw-web[redis]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def extra_missing(error: ModuleNotFoundError) -> str | None:
    """The extra whose module ``error`` says is not installed, or ``None`` for any other module."""
    missing = error.name or ""
    for extra, module in _extras.items():
        if missing == module or module.startswith(f"{missing}.") or missing.startswith(f"{module}."):
            return extra
    return None


def require_extra(extra: str, key: str, value: object, what: str) -> None:
    """Raise :class:`fw.StartupError` on ``key`` when ``extra``'s module cannot be imported."""
    try:
        importlib.import_module(_extras[extra])
    except ImportError:
        raise StartupError(key, value, f"{what} needs the {extra} extra: {pip_install(extra)}") from None
