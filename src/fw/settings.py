"""The framework's own settings that belong to no store and no mode: ``[server]``,
``[server.health]`` and ``[observability.*]``.

The other tables fw declares live with the code that owns them, and register the same way:
``[session]`` in :mod:`fw.auth.sessions.settings`, ``[auth]`` (every mode's table under it) in
:mod:`fw.auth.settings`, and each store engine's ``[middleware.<engine>]`` in that engine's
declaration module under :mod:`fw.auth.stores.engines`. :mod:`fw.pillars` imports them all with
the facade, so every table fw declares is registered before anything parses.

They are declared exactly like an application's configuration and registered through the same
mechanism, so they appear in the startup summary and the templates and obey the same layering.
Checks that involve several keys (startup preconditions) live with the pillar that reads them;
the types here only say what the keys are, which the generated loader enforces for every source.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated

from fw.markers import default


@dataclass
class ServerSettings:
    """HTTP server."""

    #: Interface to listen on.
    host: Annotated[str, default("127.0.0.1")]
    #: Port to listen on.
    port: Annotated[int, default("8000")]
    #: Largest request body accepted, in bytes (the outer limit for every request).
    max_request_body: Annotated[int, default("10485760")]
    #: Largest CBOR request body accepted, in bytes.
    cbor_max_body: Annotated[int, default("1048576")]
    #: Longest a request body may take to arrive once a handler reads it (408 after; 0s: no limit).
    body_timeout: Annotated[timedelta, default("30s")]
    #: Serve the interactive API reference at /docs (left unset: on when APP_ENV is dev).
    docs: bool


@dataclass
class HealthSettings:
    """Liveness and readiness endpoints (public, outside auth.protection, not in the OpenAPI document)."""

    #: Serve the liveness and readiness endpoints.
    enabled: Annotated[bool, default("true")]
    #: Liveness: 200 while the process serves.
    live_path: Annotated[str, default("/healthz")]
    #: Readiness: 200 when every store the configuration uses and the bearer keys or provider answer.
    ready_path: Annotated[str, default("/readyz")]


@dataclass
class AccessLogSettings:
    """One JSON line per request on the fw.access logger."""

    #: Log every request as one JSON line on the fw.access logger (it replaces uvicorn's access line).
    enabled: Annotated[bool, default("false")]


@dataclass
class MetricsSettings:
    """Prometheus metrics (pip install 'fw-web[metrics]')."""

    #: Serve Prometheus metrics at observability.metrics.path (needs the metrics extra).
    enabled: Annotated[bool, default("false")]
    #: The path the Prometheus text format is served at (public, not in the OpenAPI document).
    path: Annotated[str, default("/metrics")]


@dataclass
class TracingSettings:
    """OpenTelemetry tracing to an OTLP/HTTP collector (pip install 'fw-web[otel]')."""

    #: Trace every request and the store and provider calls it makes (needs the otel extra).
    enabled: Annotated[bool, default("false")]
    #: The collector's OTLP/HTTP URL (http://collector:4318); empty: OTEL_EXPORTER_OTLP_ENDPOINT or localhost.
    endpoint: Annotated[str, default("")]
    #: The service.name spans carry; empty: the project's name.
    service_name: Annotated[str, default("")]
    #: The share of traces started here that are recorded, from 0 to 1 (a caller's decision is kept).
    sample_ratio: Annotated[str, default("1.0")]


# Registered like any application's configuration; the loaders are pre-generated into
# ``fw/_fw_config.py`` by ``fw generate`` run in fw's own checkout.
from fw.configuration import register_config  # noqa: E402

register_config(ServerSettings, "server")
# The operations endpoints and observability (fw.operations reads them; DESIGN 10.4).
register_config(HealthSettings, "server.health")
register_config(AccessLogSettings, "observability.access_log")
register_config(MetricsSettings, "observability.metrics")
register_config(TracingSettings, "observability.tracing")
