"""Composes authentication into the App according to ``[auth]``.

The factory the facade registers with the App (:func:`extension`): it reads fw's own tables once
(``[auth]``, ``[session]``, and where every store engine lives: each engine's own table),
asks the mode registry for ``auth.mode``, runs the rules every mode shares, then the mode's own
checks, and builds the mode's extension.
A broken rule becomes :class:`Refused`, so the App refuses to start with the one-line error.
Browser modes also check ``[[auth.assurance.policy]]`` (a :class:`fw.ConfigError` naming the
entry) and that every route guarded by ``fw.auth.policy(name)`` names a configured policy.
"""

from __future__ import annotations

from collections.abc import Sequence

from fw.auth.configured import configured_stores
from fw.auth.modes.base import Mode, ModeSettings
from fw.auth.modes.registry import mode_named
from fw.auth.modes.rules import SourceOf, check_development_only, check_shared
from fw.auth.sessions.settings import SessionSettings
from fw.auth.settings import AuthSettings
from fw.configuration import bound
from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute
from fw.errors import ConfigError, StartupError
from fw.extension import Extension


class Refused:
    """Stands in for a mode whose settings break a startup rule: the App refuses to start."""

    def __init__(self, error: StartupError | ConfigError) -> None:
        self.error = error

    def routes(self) -> Sequence[BaseRoute]:
        return ()

    def middleware(self) -> Sequence[Middleware]:
        return ()

    async def startup(self) -> None:
        raise self.error

    async def shutdown(self) -> None:
        return None


def check(settings: ModeSettings, sources: SourceOf) -> Mode:
    """The chosen mode once every startup rule passed; raises :class:`fw.StartupError` otherwise."""
    mode = mode_named(settings.auth.mode)
    check_shared(settings.auth, mode, sources)
    check_development_only(settings.auth, mode, settings.app_env)
    mode.check(settings)
    if mode.browser:
        # Imported here: the assurance guards serve browser modes only, and a jwt_only App
        # should not load them (nor what they import) at startup.
        from fw.auth.assurance.guards import check_routes
        from fw.auth.assurance.policies import Policies

        policies = Policies.from_settings(settings.auth.assurance.policy, sources)
        check_routes(_guarded_routes(settings.app), policies)
    return mode


def _guarded_routes(app: object) -> list[tuple[str, object]]:
    """(pattern, handler) of every route the App registered; guards mark their handlers."""
    entries = getattr(app, "entries", None) or ()
    routes: list[tuple[str, object]] = []
    for entry in entries:
        pattern = getattr(getattr(entry, "pattern", None), "text", "")
        routes.append((str(pattern), getattr(entry, "handler", None)))
    return routes


def build_extension(settings: ModeSettings, sources: SourceOf) -> Extension | None:
    """The extension for these settings, ``None`` when auth is off, :class:`Refused` when invalid."""
    if not settings.auth.enabled:
        return None
    try:
        return check(settings, sources).extension(settings)
    except (StartupError, ConfigError) as error:
        return Refused(error)


def extension(app: object) -> Extension | None:
    """Read ``app``'s configuration and compose the chosen mode into ``app`` (its extension factory)."""
    configuration = bound(app)
    try:
        settings = ModeSettings(
            auth=configuration.config(AuthSettings),
            session=configuration.config(SessionSettings),
            stores=configured_stores(configuration),
            lookup=configuration.config,
            app=app,
            app_env=configuration.app_env,
        )
    except LookupError:
        return None  # the framework's settings are not registered: authentication stays off
    return build_extension(settings, configuration.source_of)
