"""What an authentication mode is to fw: one object that every tool asks about that mode.

The dispatcher builds its extension after its startup checks; the shared rules ask which
``[auth]`` tables it reads (every other mode's table is foreign to it, and the startup summary
hides it); ``fw doctor`` and the summary print its advisories; ``fw dev`` asks what to inject
for the development identity provider; ``fw init`` asks whether it can scaffold it.

A new mode is one package under :mod:`fw.auth.modes` (or an application's own module) holding
one object that satisfies :class:`Mode`, registered with :func:`fw.auth.register_mode`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from fw.auth.sessions.settings import SessionSettings
from fw.auth.settings import AuthSettings
from fw.auth.stores.engine import StoreSettings, resolved_table
from fw.auth.stores.engines.rdb import RdbSettings

if TYPE_CHECKING:
    from fw.configuration.advisory import Advisory
    from fw.extension import Extension

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ModeSettings:
    """The resolved settings a mode reads, read once by the dispatcher and handed over.

    ``auth`` and ``session`` are fw's own tables, and ``stores`` says where every store engine
    lives (each engine's opener reads its own table of it). A mode defined outside fw reads its
    own registered table with :meth:`table`, so no mode reads the global configuration itself.
    """

    auth: AuthSettings
    session: SessionSettings
    #: Where the store engines live (:class:`fw.auth.stores.engine.StoreSettings`).
    stores: StoreSettings
    #: Resolves any registered settings class (``fw.config`` for a running App).
    lookup: Callable[[type[Any]], Any]
    #: The App being composed: the handle App-scoped state (account seams, the running store) keys on.
    app: object | None = None
    #: ``APP_ENV`` as the configuration read it: outside ``dev`` a browser mode's cookies are all
    #: ``Secure`` (:mod:`fw.auth.browser.cookies`).
    app_env: str = "dev"

    @property
    def rdb(self) -> RdbSettings:
        """``[middleware.rdb]``, for a mode that keeps tables of its own in the relational store."""
        return self.stores.table(RdbSettings)

    def table(self, cls: type[T]) -> T:
        """The resolved instance of the registered settings class ``cls``."""
        return resolved_table(self.lookup, cls)


# DevIssuer and DevEnvironment are plain records, alike in shape only to others of fw's
# (fw.auth.passkeys.calls.BootstrapCredential): nothing in common to share.
@dataclass(frozen=True, slots=True)
class DevIssuer:
    """The development identity provider ``fw dev`` runs, and the client it registered for the app."""

    #: Its issuer URL (plain http on loopback).
    issuer: str
    #: The application's client, registered afresh on each run.
    client_id: str
    client_secret: str


@dataclass(frozen=True, slots=True)
class DevEnvironment:
    """What ``fw dev`` puts into the environment so that a mode signs in at the development provider."""

    #: Set for this run, replacing what the shell had (a fresh client registration each run).
    values: Mapping[str, str]
    #: Set only where the developer has not set them already.
    defaults: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Scaffold:
    """What ``fw init --auth <mode>`` can do with a mode (the default: it is not a choice)."""

    #: Listed as an ``--auth`` choice.
    offered: bool = False
    #: ``fw init`` writes a project that starts with it; an offered mode without it is "not available yet".
    available: bool = False
    #: The presets (``web``, ``api``) that sign people in with it unless ``--auth`` says otherwise.
    default_for: frozenset[str] = frozenset()
    #: For a mode deliberately not offered: why, and what to do instead.
    refusal: str = ""


class Mode(Protocol):
    """One ``auth.mode``: its tables, checks, extension, advisories, development and scaffold needs."""

    @property
    def name(self) -> str:
        """The ``auth.mode`` value selecting it."""
        ...

    @property
    def browser(self) -> bool:
        """Signs people in through a browser; it also reads ``[auth.session]`` and ``[auth.assurance]``."""
        ...

    @property
    def tables(self) -> tuple[str, ...]:
        """The mode-specific tables (or keys) under ``[auth]`` it reads: ``("oidc", "shared_device")``."""
        ...

    @property
    def scaffold(self) -> Scaffold: ...

    def check(self, settings: ModeSettings) -> None:
        """Startup rules that need no network; raise :class:`fw.StartupError` for the first broken one.

        The rules every mode shares (foreign tables, paths, protection) already passed.
        """
        ...

    def extension(self, settings: ModeSettings) -> Extension:
        """The App extension for settings that passed :meth:`check`."""
        ...

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        """Risky settings of this mode, for ``fw doctor`` and the startup summary (resolved key -> value)."""
        ...

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        """What ``fw dev`` injects for the development provider; ``None``: the mode does not use it."""
        ...
