"""The operations endpoints authentication lets through, whatever ``[auth.protection]`` covers.

An orchestrator probing ``/healthz`` and ``/readyz`` and a Prometheus server scraping
``/metrics`` carry no credentials; the browser modes and the bearer middleware exempt these
paths exactly (restrict ``/metrics`` at the network or the proxy when it must stay private).
"""

from __future__ import annotations

from fw.operations.health import public_paths


def unguarded_paths() -> tuple[str, ...]:
    """The health endpoints' paths and, with metrics on, the scrape path."""
    from fw.configuration import config
    from fw.settings import MetricsSettings

    paths = list(public_paths())
    try:
        metrics = config(MetricsSettings)
    except LookupError:  # not registered: an App outside fw's own pillars
        return tuple(paths)
    if metrics.enabled:
        paths.append(metrics.path)
    return tuple(dict.fromkeys(paths))
