"""The operations pillar as fw hands it over (:func:`fw.pillars.install`)."""

from __future__ import annotations

from fw.extension import register_extension
from fw.operations import accesslog, health, metrics, tracing
from fw.operations.readiness import extension as health_extension
from fw.operations.wiring import extension as observability_extension


def register() -> None:
    """Declare ``[server.health]`` and ``[observability.*]`` and compose the health endpoints and
    the request observer (access log, metrics, tracing, each as configured) into every App
    (idempotent: registering again replaces the declarations with themselves and adds no second
    factory)."""
    for feature in (health, accesslog, metrics, tracing):
        feature.register()
    register_extension(health_extension)
    register_extension(observability_extension)
