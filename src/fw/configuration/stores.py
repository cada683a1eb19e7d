"""Which store tables (``[middleware.dynamo]``, ``[middleware.firestore]``, an application's own
engine's) the resolved configuration leaves unused, so the startup summary lists only the stores
in use.

Such a table is read only when ``auth.backend`` (with authentication on) or ``session.backend``
(with sessions on) names its engine; otherwise its defaults are noise in every summary. A
display filter like every :mod:`fw.configuration.activity` hook: the values are still loaded,
``--help`` and the templates still list every key. ``[middleware.rdb]`` is always listed: an
application and ``fw migrate`` use it whatever the backends say.

The store registry (:func:`fw.auth.stores.registry.register_store`) adds each engine's table with
:func:`register_store_table`. The tables of fw's own cloud engines are known here from the start
because the summary of an App with authentication off runs without loading any store code (this
layer knows nothing about auth); registering them again is harmless.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: engine -> its configuration table, for engines whose table only they read.
_tables: dict[str, str] = {"dynamo": "middleware.dynamo", "firestore": "middleware.firestore"}


def register_store_table(engine: str, table: str) -> None:
    """List ``table`` in the startup summary only while a pillar keeps its records in ``engine``."""
    if not table:
        raise ValueError(f"register_store_table({engine!r}, ...): name the table")
    _tables[engine] = table


def engine_tables() -> dict[str, str]:
    """engine -> table, for every table listed only while its engine is in use."""
    return dict(_tables)


def used_engines(values: Mapping[str, Any]) -> set[str]:
    """The backend engines an enabled pillar of ``values`` keeps its records in."""
    used: set[str] = set()
    if values.get("auth.enabled") is True:
        used.add(str(values.get("auth.backend", "")))
    if values.get("session.enabled") is True:
        used.add(str(values.get("session.backend", "")))
    return used


def unused_store_tables(values: Mapping[str, Any]) -> list[str]:
    """The engine tables no enabled pillar uses, for the startup summary."""
    used = used_engines(values)
    return [table for engine, table in _tables.items() if engine not in used]
