"""The operations endpoints every guard lets through, whatever ``[auth.protection]`` covers.

An orchestrator probing ``/healthz`` and ``/readyz`` and a Prometheus server scraping
``/metrics`` carry no credentials. :func:`fw.operations.pillar.register` declares these paths
public (:func:`fw.extension.register_public_paths`), so the browser modes and the bearer
middleware exempt them exactly (restrict ``/metrics`` at the network or the proxy when it must
stay private); authentication never imports this module.
"""

from __future__ import annotations

from fw.operations.health import health_paths


def unguarded_paths(app: object = None) -> tuple[str, ...]:
    """The health endpoints' paths and, with metrics on, the scrape path, in the configuration
    in force (``app``, the App asking, is not needed: fw's operations settings are global)."""
    from fw.configuration import config
    from fw.settings import MetricsSettings

    paths = list(health_paths())
    try:
        metrics = config(MetricsSettings)
    except LookupError:  # not registered: an App outside fw's own pillars
        return tuple(paths)
    if metrics.enabled:
        paths.append(metrics.path)
    return tuple(dict.fromkeys(paths))
