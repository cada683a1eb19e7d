"""What a store engine is to fw: one declaration that every tool asks about that engine.

Backend selection opens it (:mod:`fw.auth.stores.select`), ``fw migrate`` asks what it creates,
``fw doctor`` and the startup summary what it advises, ``fw init`` whether it is a ``--session``
choice, and the extras messages which ``pip install`` it needs. A new engine is one module
implementing :mod:`fw.auth.stores.interfaces` plus one :class:`StoreEngine` registered with
:func:`fw.auth.stores.registry.register_store` (fw's own: :mod:`fw.auth.stores.engines`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from fw.auth.sessions.settings import SessionSettings
    from fw.auth.stores.interfaces import AuthStore, SessionStore
    from fw.configuration.advisory import Advisory, AdvisoryContext

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Where the engines live, resolved once by the auth factory and handed to an opener.

    Every engine, fw's own and one defined outside fw alike, reads its own registered table
    (``[middleware.dynamo]``: ``settings.table(DynamoSettings)``) with :meth:`table`, and the
    ``[session]`` keys from ``session``, so no opener reads the global configuration itself.
    """

    session: SessionSettings | None = None
    #: Resolves any registered settings class (``fw.config`` of the running App); ``None``: none.
    lookup: Callable[[type[Any]], Any] | None = None

    def table(self, cls: type[T]) -> T:
        """The resolved instance of the registered settings class ``cls``."""
        if self.lookup is None:
            raise LookupError(f"{cls.__qualname__}: no configuration was handed to the store")
        return resolved_table(self.lookup, cls)


def resolved_table(lookup: Callable[[type[Any]], Any], cls: type[T]) -> T:
    """What ``lookup`` resolves the registered settings class ``cls`` to, checked to be a ``cls``."""
    found = lookup(cls)
    if not isinstance(found, cls):
        raise LookupError(f"{cls.__qualname__} resolved to {type(found).__qualname__}")
    return found


@dataclass(frozen=True, slots=True)
class StoreScaffold:
    """What ``fw init --session <engine>`` can do with an engine (the default: it is not a choice)."""

    #: Listed as a ``--session`` choice.
    offered: bool = False
    #: Its product name when sessions there keep every auth record too (``auth.backend`` = the
    #: engine, no SQL database): ``DynamoDB``. Empty: the records stay in the SQL database.
    keeps_everything: str = ""
    #: The ``TEST_*`` variable naming the server the project's tests reach (empty: none).
    test_variable: str = ""
    #: Import lines the project's ``storage`` test fixture needs beyond the defaults.
    test_imports: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StoreEngine:
    """One storage engine: its name, settings table, extra, openers, hooks and scaffold choices."""

    #: The ``auth.backend`` / ``session.backend`` value selecting it.
    name: str
    #: Opens the ``auth.backend`` records (``None``: the engine keeps only sessions).
    open_auth: Callable[[StoreSettings], AuthStore] | None = None
    #: Opens sessions on a connection of their own (``None``: only in its ``auth.backend`` store).
    open_sessions: Callable[[StoreSettings], SessionStore] | None = None
    #: Sessions live in the ``auth.backend`` store, so ``session.backend`` = this engine needs
    #: ``auth.backend`` = this engine too, and its records include ``sessions``.
    sessions_in_auth_store: bool = False
    #: Destroying a session ends it for every holder of the cookie, so a logout reached from the
    #: back channel (:meth:`~fw.auth.stores.interfaces.SessionStore.delete_marked`) ends it too;
    #: ``False`` for sessions sealed into the cookie itself.
    recalls_sessions: bool = True
    #: Its configuration table (``middleware.dynamo``); empty when it has none.
    table: str = ""
    #: The settings dataclass of that table, declared and registered with ``fw.register_config``
    #: beside the engine's declaration (its opener reads it with :meth:`StoreSettings.table`).
    settings: type[Any] | None = None
    #: The table is read whatever the backends say (listed in every startup summary).
    table_always_used: bool = False
    #: The ``fw-web`` extra selecting it requires (``pip install 'fw-web[redis]'``); empty: none.
    extra: str = ""
    #: Every extra the engine may need -> the module it installs (``{"postgres": "asyncpg"}``).
    extras: Mapping[str, str] = field(default_factory=dict)
    #: ``fw migrate``: create what the engine needs (a table); printable lines. ``None``: nothing.
    migrate: Callable[[StoreSettings], Awaitable[list[str]]] | None = None
    #: ``fw doctor`` and the startup summary: what to do while the engine is configured.
    doctor: Callable[[AdvisoryContext], list[Advisory]] | None = None
    scaffold: StoreScaffold = StoreScaffold()

    @property
    def keeps_auth(self) -> bool:
        return self.open_auth is not None

    @property
    def keeps_sessions(self) -> bool:
        return self.open_sessions is not None or self.sessions_in_auth_store
