"""The one registry of store engines: ``auth.backend`` and ``session.backend`` -> :class:`StoreEngine`.

Everything that depends on which engines exist asks here and nowhere else: backend selection
(:mod:`fw.auth.stores.select`, the one place a store is opened), the extras messages
(:mod:`fw.extras`), ``fw migrate`` and ``fw doctor``, the startup summary's store tables and
``fw init``'s storage choices. fw registers the engines it ships (:mod:`fw.auth.stores.engines`,
one line each); an application registers its own with :func:`register_store` before its App
starts, as it registers a mode with :func:`fw.auth.register_mode`.

A declaration is data plus small callables; it imports no driver. Each callable imports its
engine's module (and so SQLAlchemy, redis, aiobotocore or the Datastore client) only when called,
so a configuration loads the code of the engines it selects and no other's (DESIGN 10.1).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.auth.stores.engines import BUILTIN
from fw.configuration.choices import extend_choices
from fw.configuration.stores import register_store_table
from fw.errors import StartupError
from fw.extras import register_extras, require_extra

if TYPE_CHECKING:
    from fw.configuration.advisory import Advisory, AdvisoryContext

__all__ = [
    "StoreEngine",
    "StoreScaffold",
    "StoreSettings",
    "find_store",
    "register_store",
    "registered_stores",
]

AUTH_KEY = "auth.backend"
SESSION_KEY = "session.backend"


_NAME = re.compile(r"[a-z][a-z0-9_]*")
_engines: dict[str, StoreEngine] = {}


def register_store(engine: StoreEngine) -> StoreEngine:
    """Make ``auth.backend`` / ``session.backend = engine.name`` select ``engine``.

    Registering the same object again is a no-op; another object under a name already taken is
    refused, so no engine silently replaces another.
    """
    if not _NAME.fullmatch(engine.name):
        raise ValueError(f"store name {engine.name!r}: use lower-case letters, digits and _")
    if not engine.keeps_sessions and not engine.keeps_auth:
        raise ValueError(f"store {engine.name!r} opens neither auth records nor sessions")
    existing = _engines.get(engine.name)
    if existing is not None and existing is not engine:
        raise RuntimeError(f"store {engine.name!r} is already registered ({existing!r})")
    _engines[engine.name] = engine
    # The loader accepts every registered engine's name for the keys it can serve.
    if engine.keeps_auth:
        extend_choices(AUTH_KEY, engine.name)
    if engine.keeps_sessions:
        extend_choices(SESSION_KEY, engine.name)
    if engine.table and not engine.table_always_used:
        register_store_table(engine.name, engine.table)
    register_extras(engine.extras)
    return engine


def find_store(name: object) -> StoreEngine | None:
    """The engine registered under ``name``, or ``None``."""
    return _engines.get(name) if isinstance(name, str) else None


def registered_stores() -> tuple[StoreEngine, ...]:
    """Every registered engine, in registration order (the order messages list them in)."""
    return tuple(_engines.values())


def auth_backends() -> tuple[str, ...]:
    """The ``auth.backend`` values: engines keeping the auth records."""
    return tuple(engine.name for engine in registered_stores() if engine.keeps_auth)


def session_backends() -> tuple[str, ...]:
    """The ``session.backend`` values: engines keeping browser sessions."""
    return tuple(engine.name for engine in registered_stores() if engine.keeps_sessions)


def recalling_session_backends() -> tuple[str, ...]:
    """The ``session.backend`` values whose destroyed sessions are gone for every holder."""
    return tuple(
        engine.name for engine in registered_stores() if engine.keeps_sessions and engine.recalls_sessions
    )


def all_extras() -> dict[str, str]:
    """Every extra a registered engine may need -> the module it installs."""
    return {extra: module for engine in registered_stores() for extra, module in engine.extras.items()}


def _refusal(served: tuple[str, ...]) -> str:
    choices = served[0] if len(served) == 1 else "one of " + ", ".join(served)
    return f"not a backend fw knows; use {choices}"


def _require_extra(engine: StoreEngine, key: str, what: str) -> None:
    if engine.extra:
        require_extra(engine.extra, key, engine.name, what)


def _selected(backend: str, key: str, served: tuple[str, ...], what: str) -> StoreEngine:
    """The engine ``key`` names: refused unless it is one of ``served`` and its extra is installed."""
    engine = find_store(backend)
    if engine is None or engine.name not in served:
        raise StartupError(key, backend, _refusal(served))
    _require_extra(engine, key, f"the {engine.name} {what}")
    return engine


def auth_engine(backend: str) -> StoreEngine:
    """The engine ``auth.backend`` names: refused unless it keeps auth records and its extra is installed."""
    return _selected(backend, AUTH_KEY, auth_backends(), "backend")


def session_engine(backend: str) -> StoreEngine:
    """The engine ``session.backend`` names: refused unless it keeps sessions and its extra is installed."""
    return _selected(backend, SESSION_KEY, session_backends(), "session backend")


def named_backends(values: Mapping[str, Any]) -> dict[str, str]:
    """``auth.backend`` and ``session.backend`` as ``values`` has them, key -> value (set ones only)."""
    found = {key: values.get(key) for key in (AUTH_KEY, SESSION_KEY)}
    return {key: value for key, value in found.items() if isinstance(value, str) and value}


def doctor_advisories(context: AdvisoryContext) -> list[Advisory]:
    """What each engine that ``auth.backend`` or ``session.backend`` names has to say."""
    found: list[Advisory] = []
    for name in dict.fromkeys(named_backends(context.values).values()):
        engine = find_store(name)
        if engine is not None and engine.doctor is not None:
            found.extend(engine.doctor(context))
    return found


async def migrate(backends: Mapping[str, str], settings: StoreSettings) -> list[str]:
    """``fw migrate`` for the engines ``backends`` (key -> value) name: each creates what it needs."""
    first_key: dict[str, str] = {}  # engine -> the first key naming it
    for key, value in backends.items():
        first_key.setdefault(value, key)
    lines: list[str] = []
    for name, key in first_key.items():
        engine = find_store(name)
        if engine is None or engine.migrate is None:
            continue
        _require_extra(engine, key, f"the {engine.name} backend")
        lines.extend(await engine.migrate(settings))
    return lines


# fw's own engines, in the order messages and ``fw init`` list them.
for _engine in BUILTIN:
    register_store(_engine)
