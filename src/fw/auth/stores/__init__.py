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
"""

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
