"""``[server.health]``: where the liveness and readiness endpoints answer, and whether they do.

The table is declared with fw's own settings (:class:`fw.settings.HealthSettings`, loaded by the
pre-generated ``fw/_fw_config.py``), so its keys appear in the startup summary, the templates and
``fw doctor`` and obey the same layering as ``[server]``.

This module imports nothing but the configuration layer: the paths operations declares public
(:mod:`fw.operations.paths`) and the request observer ask it which paths the health endpoints
take (:func:`health_paths`), and the endpoints (:mod:`fw.operations.readiness`) and
``fw healthcheck`` read the same settings.
"""

from __future__ import annotations

from fw.configuration import config
from fw.settings import HealthSettings


def health_settings() -> HealthSettings:
    """``[server.health]`` of the parsed configuration."""
    return config(HealthSettings)


def health_paths() -> tuple[str, ...]:
    """The paths the health endpoints answer on (none while ``server.health.enabled`` is off).

    Authentication must let both through whatever ``[auth.protection]`` says: an orchestrator
    probing them carries no credentials.
    """
    settings = health_settings()
    if not settings.enabled:
        return ()
    return tuple(dict.fromkeys((settings.live_path, settings.ready_path)))
