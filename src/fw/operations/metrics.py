"""Prometheus metrics (``[observability.metrics]``, the ``fw-web[metrics]`` extra).

:data:`SERIES` is the one list of what fw exports: the collectors are built from it and the
documentation's metrics reference is written from it (:func:`metrics_reference_page`), so the
two cannot drift. :class:`Metrics` is both a request hook of the App's request observer (one
count and one duration per request, labelled with the route *template*, and the auth decision
the middleware recorded) and the sink of :mod:`fw.operations.events` (store calls, provider
calls, JWKS refreshes). Its :meth:`Metrics.route` serves the text format at
``observability.metrics.path``, rendering in a worker thread so a scrape never holds up a
request.

Several worker processes: when ``PROMETHEUS_MULTIPROC_DIR`` is set (before the process starts),
``prometheus-client`` keeps every value in that directory and a scrape of any worker answers the
sum over all of them.

``prometheus_client`` is imported only when a :class:`Metrics` is built, never by ``import fw``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fw.errors import StartupError
from fw.extras import require_extra
from fw.operations import events
from fw.settings import MetricsSettings

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import Scope

    from fw.core.middleware import Middleware
    from fw.core.routes import BaseRoute, Route

#: Request and store durations are short: buckets from half a millisecond to ten seconds.
DURATION_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

#: The route label of a request no route matched (a 404): never the raw path.
UNMATCHED = "unmatched"

#: Methods counted under their own name; any other becomes ``_OTHER`` (as OpenTelemetry does),
#: so a client inventing methods cannot grow the number of series.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})


@dataclass(frozen=True)
class Series:
    """One exported metric: its exposed name, type, help text and labels (with what each holds)."""

    name: str
    kind: str  # "counter" | "histogram"
    help: str
    labels: Mapping[str, str]


SERIES: tuple[Series, ...] = (
    Series(
        "fw_http_requests_total",
        "counter",
        "HTTP requests answered, by method, route template and status.",
        {
            "method": "the request method (`_OTHER` for a method outside HTTP's own)",
            "route": "the matched route's template (`/orders/{id}`), `unmatched` when none matched",
            "status": "the response status code (500 when the application raised)",
        },
    ),
    Series(
        "fw_http_request_duration_seconds",
        "histogram",
        "Time from the request's arrival to its last response byte, by method and route template.",
        {
            "method": "as in `fw_http_requests_total`",
            "route": "as in `fw_http_requests_total`",
        },
    ),
    Series(
        "fw_auth_decisions_total",
        "counter",
        "Authentication decisions taken on requests, by mode, outcome and reason.",
        {
            "mode": "`auth.mode` (`jwt_only`, `oidc_only`, ...)",
            "outcome": "`allowed`, `anonymous`, `rejected` (a 401 or a redirect to sign in) or "
            "`unavailable` (a store could not answer: 503)",
            "reason": "why a request was rejected (`expired`, `bad_signature`, `revoked`, ...: the list "
            "below the table); empty otherwise. The client is never told.",
        },
    ),
    Series(
        "fw_store_operation_duration_seconds",
        "histogram",
        "Time each call to an auth or session store took, by backend and operation.",
        {
            "backend": "the store engine (`rdb`, `redis`, `cookie`, `dynamo`, `firestore`)",
            "operation": "the store method, prefixed by its record store (`sessions.load`, "
            "`revocations.lookup`, `accounts.resolve`)",
        },
    ),
    Series(
        "fw_provider_requests_total",
        "counter",
        "HTTP requests fw made to identity providers and token issuers, by provider, endpoint and outcome.",
        {
            "provider": "the host name fw called (no port, path or credentials)",
            "endpoint": "`discovery`, `jwks`, `token`, `userinfo`, `device_authorization`",
            "outcome": "`ok`, `error` (an HTTP error status or an answer fw refused) or `unreachable`",
        },
    ),
    Series(
        "fw_jwks_refresh_total",
        "counter",
        "Fetches of a JSON Web Key Set (bearer keys, a provider's ID-token keys), by outcome.",
        {"outcome": "`ok` (a usable key set was read) or `error`"},
    ),
)


def require_metrics_extra() -> None:
    """Refuse to start (:class:`fw.StartupError`) when ``prometheus-client`` is not installed."""
    require_extra("metrics", "observability.metrics.enabled", True, "metrics")


def metrics_from(settings: MetricsSettings) -> Metrics | None:
    """The metrics ``settings`` ask for, or ``None`` while they are off; a refused path or a
    missing extra is a :class:`fw.StartupError`."""
    if not settings.enabled:
        return None
    if not settings.path.startswith("/"):
        raise StartupError("observability.metrics.path", settings.path, "use a path such as /metrics")
    return Metrics(path=settings.path)


def metrics_hook() -> Metrics | None:
    """``[observability.metrics]`` of the parsed configuration as the observer's hook, or ``None``
    while off (call it when the App is built; serve ``hook.extension()`` with it)."""
    from fw.configuration import config

    return metrics_from(config(MetricsSettings))


class Metrics:
    """The collectors of :data:`SERIES`, a request hook feeding them, and the scrape endpoint.

    ``registry`` holds this App's collectors (a fresh one by default, so two Apps in one process
    count apart); in multiprocess mode a scrape reads every process's values from
    ``PROMETHEUS_MULTIPROC_DIR`` instead.
    """

    def __init__(self, *, path: str = "/metrics", registry: Any = None) -> None:
        require_metrics_extra()
        import prometheus_client

        self.path = path
        self.registry = registry if registry is not None else prometheus_client.CollectorRegistry()
        built: dict[str, Any] = {}
        for series in SERIES:
            labels = list(series.labels)
            if series.kind == "counter":
                built[series.name] = prometheus_client.Counter(
                    series.name, series.help, labels, registry=self.registry
                )
            else:
                built[series.name] = prometheus_client.Histogram(
                    series.name, series.help, labels, registry=self.registry, buckets=DURATION_BUCKETS
                )
        self._requests = built["fw_http_requests_total"]
        self._durations = built["fw_http_request_duration_seconds"]
        self._decisions = built["fw_auth_decisions_total"]
        self._stores = built["fw_store_operation_duration_seconds"]
        self._providers = built["fw_provider_requests_total"]
        self._jwks = built["fw_jwks_refresh_total"]
        # Labelled children, found once per label set: the request path skips labels()' checks.
        self._http: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._auth: dict[object, Any] = {}
        self._store_children: dict[tuple[str, str], Any] = {}

    # -- the request hook ------------------------------------------------------------------

    def start(self, scope: Scope) -> object:
        return None

    def finish(self, state: object, scope: Scope, status: int, duration: float) -> None:
        if scope.get("fw.untracked") or scope["type"] != "http":
            return
        method: str = scope["method"]
        if method not in KNOWN_METHODS:
            method = "_OTHER"  # before the lookup too: invented methods must not grow the cache
        route: str = scope.get("fw.route") or UNMATCHED
        key = (method, route, status)
        children = self._http.get(key)
        if children is None:
            children = self._http[key] = (
                self._requests.labels(method, route, str(status)),
                self._durations.labels(method, route),
            )
        children[0].inc()
        children[1].observe(duration)
        decision = scope.get("fw.auth")
        if decision is not None:
            counter = self._auth.get(decision)
            if counter is None:
                mode, outcome, reason = decision
                counter = self._auth[decision] = self._decisions.labels(mode, outcome, reason)
            counter.inc()

    # -- the events sink ---------------------------------------------------------------------

    def store_observed(self, backend: str, operation: str, seconds: float) -> None:
        key = (backend, operation)
        child = self._store_children.get(key)
        if child is None:
            child = self._store_children[key] = self._stores.labels(backend, operation)
        child.observe(seconds)

    def provider_observed(self, provider: str, endpoint: str, outcome: str) -> None:
        self._providers.labels(provider, endpoint, outcome).inc()

    def jwks_observed(self, outcome: str) -> None:
        self._jwks.labels(outcome).inc()

    # -- the scrape --------------------------------------------------------------------------

    def render(self) -> bytes:
        """The Prometheus text format of every series (every process's, in multiprocess mode)."""
        import prometheus_client
        from prometheus_client import multiprocess

        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = prometheus_client.CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return prometheus_client.generate_latest(registry)
        return prometheus_client.generate_latest(self.registry)

    async def scrape(self, request: Request) -> Response:
        """The ``observability.metrics.path`` endpoint: renders in a worker thread."""
        from prometheus_client import CONTENT_TYPE_LATEST
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import Response

        body = await run_in_threadpool(self.render)
        return Response(body, headers={"Content-Type": CONTENT_TYPE_LATEST, "Cache-Control": "no-store"})

    def route(self) -> Route:
        """``GET observability.metrics.path``, left out of the OpenAPI document."""
        from fw.core.routes import Route

        return Route(self.path, self.scrape, methods=["GET"], name="fw_metrics")

    def extension(self) -> MetricsExtension:
        """The App extension serving :meth:`route` and feeding on :mod:`fw.operations.events`."""
        return MetricsExtension(self)


class MetricsExtension:
    """Serves the scrape endpoint; store, provider and JWKS reports reach the metrics from the
    moment it is built (the App builds extensions before any starts, so before stores open)
    until the App shuts down."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        events.activate(metrics=metrics)

    def routes(self) -> Sequence[BaseRoute]:
        return [self.metrics.route()]

    def middleware(self) -> Sequence[Middleware]:
        return []

    async def startup(self) -> None:
        events.activate(metrics=self.metrics)

    async def shutdown(self) -> None:
        events.deactivate(self.metrics)


def metrics_reference_page() -> str:
    """``docs/reference/metrics.md``: every series fw exports, its type, help and labels."""
    from fw.auth.outcome import REASONS
    from fw.reference.markdown import cell, code, row

    lines = [
        "# Metrics reference",
        "",
        "<!-- Generated by `python -m fw.reference docs/reference` from fw.operations.metrics.SERIES;"
        " do not edit. -->",
        "",
        "With `[observability.metrics] enabled = true` (and `pip install 'fw-web[metrics]'`), fw serves",
        "these series in the Prometheus text format at `observability.metrics.path` (`/metrics`).",
        f"Durations are in seconds, in the buckets {', '.join(f'{b:g}' for b in DURATION_BUCKETS)}.",
        "",
        row("Series", "Type", "Help", "Labels"),
        row("---", "---", "---", "---"),
    ]
    for series in SERIES:
        labels = "<br>".join(f"{code(name)}: {cell(what)}" for name, what in series.labels.items())
        lines.append(row(code(series.name), series.kind, cell(series.help), labels))
    lines += [
        "",
        "The `reason` of `fw_auth_decisions_total` is one of: " + ", ".join(f"`{r}`" for r in REASONS) + ".",
        "",
    ]
    return "\n".join(lines)


def series_names() -> list[str]:
    """The exposed name of every series, in :data:`SERIES` order."""
    return [series.name for series in SERIES]


__all__ = [
    "DURATION_BUCKETS",
    "SERIES",
    "UNMATCHED",
    "Metrics",
    "MetricsExtension",
    "MetricsSettings",
    "Series",
    "metrics_from",
    "metrics_hook",
    "metrics_reference_page",
    "require_metrics_extra",
    "series_names",
]
