"""Where auth's stores live, read from the parsed configuration in one place.

Pillars receive resolved settings: the auth factory (:func:`fw.auth.plugin.extension`) calls
:func:`configured_stores` once and hands the result to the mode, which hands it to
:mod:`fw.auth.stores.select`. The only other readers are the ones with no App to hand it over:
``fw.auth`` calls made while no App runs (:mod:`fw.auth.runtime`) and ``fw migrate``.
"""

from __future__ import annotations

from fw.auth.stores.engine import StoreSettings
from fw.auth.stores.engines.rdb import RdbSettings
from fw.auth.stores.select import middleware_settings
from fw.configuration import Configuration, in_force


def configured_stores(configuration: Configuration | None = None) -> StoreSettings:
    """Where every engine lives in ``configuration`` (default: the one in force): each engine's
    opener reads its own registered table of it (``[middleware.rdb]``, an outside engine's);
    each of fw's engines gets its defaults where no configuration is in force."""
    try:
        resolved = configuration or in_force()
        resolved.config(RdbSettings)
    except LookupError:
        from fw.rdb.migrate import configured_dsn  # only here: it loads SQLAlchemy and Alembic

        return middleware_settings(configured_dsn())
    return StoreSettings(lookup=resolved.config)
