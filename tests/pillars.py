"""The extensions of an App besides fw's operations pillar (health, observability), which every
App composes: what a test of one pillar (an auth mode, a mode of its own) looks at."""

from __future__ import annotations

from typing import Any


def pillars(app: Any) -> list[Any]:
    """``app.extensions`` without fw's operations pillar."""
    return [found for found in app.extensions if not type(found).__module__.startswith("fw.operations.")]


def the_pillar(app: Any) -> Any:
    """The one extension of ``app`` besides fw's operations pillar (its auth mode, in a test)."""
    [found] = pillars(app)
    return found
