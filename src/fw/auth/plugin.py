"""Composes authentication into the App according to ``[auth]``.

The factory the facade registers with the App (:func:`extension`): it reads fw's own tables once
(``[auth]``, ``[session]``, ``[middleware]``: where the rdb, dynamo and firestore stores live),
asks the mode registry for ``auth.mode``, runs the rules every mode shares, then the mode's own
checks, and builds the mode's extension.
A broken rule becomes :class:`Refused`, so the App refuses to start with the one-line error.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from fw.auth.configured import configured_middleware
from fw.auth.modes.base import Mode, ModeSettings
from fw.auth.modes.registry import mode_named
from fw.auth.modes.rules import SourceOf, check_shared
from fw.configuration.registry import config, source_of
from fw.errors import StartupError
from fw.extension import Extension
from fw.settings import AuthSettings, SessionSettings


class Refused:
    """Stands in for a mode whose settings break a startup rule: the App refuses to start."""

    def __init__(self, error: StartupError) -> None:
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
    mode.check(settings)
    return mode


def build_extension(settings: ModeSettings, sources: SourceOf) -> Extension | None:
    """The extension for these settings, ``None`` when auth is off, :class:`Refused` when invalid."""
    if not settings.auth.enabled:
        return None
    try:
        return check(settings, sources).extension(settings)
    except StartupError as error:
        return Refused(error)


def extension(app: object) -> Extension | None:
    """Read the parsed configuration and compose the chosen mode into ``app`` (its extension factory)."""
    try:
        settings = ModeSettings(
            auth=config(AuthSettings),
            session=config(SessionSettings),
            middleware=configured_middleware(),
            lookup=config,
            app=app,
        )
    except LookupError:
        return None  # the framework's settings are not registered: authentication stays off
    return build_extension(settings, source_of)
