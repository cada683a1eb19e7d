"""Which of fw's store tables (``[middleware.dynamo]``, ``[middleware.firestore]``) the resolved
configuration leaves unused, so the startup summary lists only the stores in use.

Those tables are read only when ``auth.backend`` (with authentication on) or ``session.backend``
(with sessions on) names their engine; otherwise their defaults are noise in every summary. A
display filter like every :mod:`fw.configuration.activity` hook: the values are still loaded,
``--help`` and the templates still list every key. ``[middleware.rdb]`` is always listed: an
application and ``fw migrate`` use it whatever the backends say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The ``[middleware]`` tables that belong to one backend engine each.
ENGINE_TABLES = {"dynamo": "middleware.dynamo", "firestore": "middleware.firestore"}


def used_engines(values: Mapping[str, Any]) -> set[str]:
    """The backend engines an enabled pillar of ``values`` keeps its records in."""
    used: set[str] = set()
    if values.get("auth.enabled") is True:
        used.add(str(values.get("auth.backend", "")))
    if values.get("session.enabled") is True:
        used.add(str(values.get("session.backend", "")))
    return used


def unused_store_tables(values: Mapping[str, Any]) -> list[str]:
    """The ``[middleware.*]`` engine tables no enabled pillar uses, for the startup summary."""
    used = used_engines(values)
    return [table for engine, table in ENGINE_TABLES.items() if engine not in used]
