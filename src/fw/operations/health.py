"""``[server.health]``: where the liveness and readiness endpoints answer, and whether they do.

Registered like any application's configuration (:func:`register`, called by
:func:`fw.operations.pillar.register` when fw hands its own pillars over, before configuration is first
parsed); its loader is the pre-generated ``fw/operations/_fw_config.py``, so the keys appear in
the startup summary, the templates and ``fw doctor`` and obey the same layering as ``[server]``.

This module imports nothing but the configuration layer: the auth pillar may ask it which paths
the health endpoints take (:func:`public_paths`) without an import cycle, and the endpoints
(:mod:`fw.operations.readiness`) and ``fw healthcheck`` read the same settings.
"""

from __future__ import annotations

from fw.configuration import config
from fw.settings import HealthSettings


def health_settings() -> HealthSettings:
    """``[server.health]`` of the parsed configuration."""
    return config(HealthSettings)


def public_paths() -> tuple[str, ...]:
    """The paths the health endpoints answer on (none while ``server.health.enabled`` is off).

    Authentication must let both through whatever ``[auth.protection]`` says: an orchestrator
    probing them carries no credentials.
    """
    settings = health_settings()
    if not settings.enabled:
        return ()
    return tuple(dict.fromkeys((settings.live_path, settings.ready_path)))
