"""The operations pillar as fw hands it over (:func:`fw.pillars.install`)."""

from __future__ import annotations

from fw.extension import register_extension, register_public_paths
from fw.operations.paths import unguarded_paths
from fw.operations.readiness import extension as health_extension
from fw.operations.wiring import extension as observability_extension


def register() -> None:
    """Compose the health endpoints and the request observer (access log, metrics, tracing, each
    as configured) into every App, and declare their paths public, so every guard lets the
    probes and the scrape through (idempotent: no second factory or provider). Their settings
    tables are fw's own (:mod:`fw.settings`)."""
    register_extension(health_extension)
    register_public_paths(unguarded_paths)
    register_extension(observability_extension)
