"""Where auth's stores live, read from the parsed configuration in one place.

Pillars receive resolved settings: the auth factory (:func:`fw.auth.plugin.extension`) calls
:func:`configured_middleware` once and hands the result to the mode, which hands it to
:mod:`fw.auth.stores.select`. The only other readers are the ones with no App to hand it over:
``fw.auth`` calls made while no App runs (:mod:`fw.auth.runtime`) and ``fw migrate``.
"""

from __future__ import annotations

from fw.auth.stores.select import middleware_settings
from fw.configuration import Configuration, in_force
from fw.settings import MiddlewareSettings


def configured_middleware(configuration: Configuration | None = None) -> MiddlewareSettings:
    """``[middleware]`` (rdb, dynamo, firestore) of ``configuration`` (default: the one in force);
    each engine's defaults where unregistered."""
    try:
        return (configuration or in_force()).config(MiddlewareSettings)
    except LookupError:
        from fw.rdb.migrate import configured_dsn  # only here: it loads SQLAlchemy and Alembic

        return middleware_settings(configured_dsn())
