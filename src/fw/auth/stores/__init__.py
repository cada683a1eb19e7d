"""Where auth keeps its records: small async interfaces, one module per engine behind them.

- :mod:`~fw.auth.stores.interfaces`: the interfaces (accounts, allow-list, revocations,
  sessions, ceremonies, passkeys, bootstrap) and :class:`AuthStore`, all of ``auth.backend``;
- :mod:`~fw.auth.stores.records`: the records they exchange (``StoredAccount``,
  ``PasskeyCredential``, ``BootstrapRecord``...);
- :mod:`~fw.auth.stores.rdb`, :mod:`~fw.auth.stores.redis`, :mod:`~fw.auth.stores.cookie`,
  :mod:`~fw.auth.stores.firestore`: engines (:mod:`~fw.auth.stores.fields`: a passkey as flat fields);
- :mod:`~fw.auth.stores.engine`: what an engine declares (name, settings table, extra, openers,
  migration and doctor hooks, scaffold choices); :mod:`~fw.auth.stores.engines`: fw's own;
- :mod:`~fw.auth.stores.registry`: the one registry of engines every tool asks;
- :mod:`~fw.auth.stores.select`: ``auth.backend`` / ``session.backend`` to an opened store.

A new engine is one module implementing the interfaces plus one
:class:`~fw.auth.stores.engine.StoreEngine` registered in one line with
:func:`~fw.auth.stores.registry.register_store`; the contract tests in ``tests/stores`` then run
against it through one more fixture parameter (``tests/stores/memory`` is such an engine,
registered from outside fw).

The names below load their modules on first use: the engine declarations, which the facade's
import registers with their settings tables, load no interface or engine code (DESIGN 10.1).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fw.auth.stores.errors import StoreUnavailable
    from fw.auth.stores.interfaces import (
        AccountStore,
        AllowListStore,
        AuthStore,
        BootstrapStore,
        CeremonyStore,
        PasskeyStore,
        RevocationStore,
        SessionStore,
    )

__all__ = [
    "AccountStore",
    "AllowListStore",
    "AuthStore",
    "BootstrapStore",
    "CeremonyStore",
    "PasskeyStore",
    "RevocationStore",
    "SessionStore",
    "StoreUnavailable",
]


def __getattr__(name: str) -> Any:
    if name == "StoreUnavailable":
        from fw.auth.stores.errors import StoreUnavailable

        return StoreUnavailable
    if name in __all__:
        from fw.auth.stores import interfaces

        return getattr(interfaces, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
