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

from dataclasses import dataclass
from typing import Annotated

from fw.configuration import config, register_config
from fw.markers import default


@dataclass
class HealthSettings:
    """Liveness and readiness endpoints (public, outside auth.protection, not in the OpenAPI document)."""

    #: Serve the liveness and readiness endpoints.
    enabled: Annotated[bool, default("true")]
    #: Liveness: 200 while the process serves.
    live_path: Annotated[str, default("/healthz")]
    #: Readiness: 200 when every store the configuration uses and the bearer keys or provider answer.
    ready_path: Annotated[str, default("/readyz")]


def register() -> None:
    """Declare ``[server.health]`` (before configuration is parsed)."""
    register_config(HealthSettings, "server.health")


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
