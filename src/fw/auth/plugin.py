"""Composes authentication into the App according to ``[auth]``.

A small dispatcher: ``auth.mode`` names a module under :mod:`fw.auth.modes` whose
``extension(app, auth, rdb_dsn)`` builds the App extension; adding a mode is adding one entry.
The shared table rules of :mod:`fw.auth.mode_rules` run first, for every mode.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from fw.auth import mode_rules
from fw.errors import StartupError

if TYPE_CHECKING:
    from fw.app import App, Extension
    from fw.settings import AuthSettings

ModeFactory = Callable[["App", "AuthSettings", str], "Extension"]

#: auth.mode -> module defining ``extension(app, auth, rdb_dsn)``.
MODES: dict[str, str] = {
    "jwt_only": "fw.auth.modes.jwt_only",
    "oidc_only": "fw.auth.modes.oidc_only",
}


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


def _settings() -> tuple[AuthSettings, str]:
    from fw import configuration
    from fw.rdb.migrate import configured_dsn
    from fw.settings import AuthSettings

    return configuration.config(AuthSettings), configured_dsn()


def build_extension(
    app: App, auth: AuthSettings, rdb_dsn: str, source_of: mode_rules.SourceOf
) -> Extension | None:
    """The extension for these settings, ``None`` when auth is off, :class:`Refused` when invalid."""
    if not auth.enabled:
        return None
    try:
        mode_rules.check(auth, source_of)
        module_name = MODES.get(auth.mode)
        if module_name is None:
            raise StartupError(
                "auth.mode", auth.mode, "this mode is not available in this installation of fw"
            )
        factory = cast(ModeFactory, importlib.import_module(module_name).extension)
        return factory(app, auth, rdb_dsn)
    except StartupError as error:
        return Refused(error)


def extension_for(app: App) -> Extension | None:
    """Read ``[auth]`` from the parsed configuration and pick the mode."""
    try:
        auth, dsn = _settings()
    except LookupError:
        return None  # the framework's settings are not registered: authentication stays off
    from fw import configuration

    return build_extension(app, auth, dsn, configuration.source_of)
