"""OpenTelemetry tracing (``[observability.tracing]``, the ``fw-web[otel]`` extra).

:class:`Tracing` is a request hook of the App's request observer: one server span per request,
named ``METHOD route`` (the route *template*) with the semantic-convention attributes
``http.request.method``, ``http.route`` and ``http.response.status_code``, continuing the trace
an incoming ``traceparent`` names. It is also the tracing sink of :mod:`fw.operations.events`:
a child span for each store call and each call to a provider (whose request carries the child's
``traceparent``), and for the bearer verification and the session read.

What a span carries is chosen, never copied from the request: no header, cookie, query, body or
exception message reaches an attribute or event (an error is recorded by its type alone), so no
token, cookie, code or secret can.

Spans go to a ``BatchSpanProcessor`` and the OTLP/HTTP exporter (``endpoint``); tests pass their
own exporter (the SDK's ``InMemorySpanExporter``). The tracer provider is the App's own: fw does
not replace the process's global one, which an application may have set for its own spans
(those nest under fw's, the context being shared).

OpenTelemetry is imported only when a :class:`Tracing` is built, never by ``import fw``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from fw.errors import StartupError
from fw.extras import pip_install, require_extra
from fw.operations import events
from fw.settings import TracingSettings

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span
    from starlette.types import Scope

    from fw.core.middleware import Middleware
    from fw.core.routes import BaseRoute

#: Methods named as themselves; any other is ``_OTHER`` (the semantic conventions' rule).
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})

#: The OTLP/HTTP path of traces, added to an ``endpoint`` given without a path.
TRACES_PATH = "/v1/traces"


def sample_ratio(value: str) -> float:
    """``observability.tracing.sample_ratio`` as a number from 0 to 1, or a :class:`fw.StartupError`."""
    try:
        ratio = float(value)
    except ValueError:
        ratio = math.nan
    if not 0.0 <= ratio <= 1.0:
        raise StartupError(
            "observability.tracing.sample_ratio", value, "use a number from 0 to 1 such as 0.1"
        )
    return ratio


#: The exporter :func:`exporting_to` puts in place of the OTLP one (tests), else ``None``.
_exporter_override: list[SpanExporter] = []


@contextlib.contextmanager
def exporting_to(exporter: SpanExporter) -> Iterator[SpanExporter]:
    """Every :class:`Tracing` built from settings inside the block exports to ``exporter`` (the
    SDK's ``InMemorySpanExporter`` in a test) instead of the OTLP endpoint."""
    _exporter_override.append(exporter)
    try:
        yield exporter
    finally:
        _exporter_override.remove(exporter)


def tracing_from(
    settings: TracingSettings, project: str, *, untracked_paths: Collection[str] = ()
) -> Tracing | None:
    """The tracing ``settings`` ask for, or ``None`` while off; ``project`` names the service when
    ``service_name`` is empty. A bad ratio or endpoint or a missing extra is a :class:`fw.StartupError`."""
    if not settings.enabled:
        return None
    ratio = sample_ratio(settings.sample_ratio)
    endpoint = settings.endpoint.strip()
    if endpoint and (urlsplit(endpoint).scheme not in ("http", "https") or not urlsplit(endpoint).hostname):
        raise StartupError(
            "observability.tracing.endpoint",
            endpoint,
            "use the collector's OTLP/HTTP URL such as http://collector:4318",
        )
    return Tracing(
        service_name=settings.service_name or project,
        endpoint=endpoint,
        sample_ratio=ratio,
        exporter=_exporter_override[-1] if _exporter_override else None,
        untracked_paths=untracked_paths,
    )


def tracing_hook(project: str, *, untracked_paths: Collection[str] = ()) -> Tracing | None:
    """``[observability.tracing]`` of the parsed configuration as the observer's hook, or ``None``
    while off (call it when the App is built; ``hook.extension()`` exports the last spans at
    shutdown). ``project``: the service name when ``service_name`` is empty."""
    from fw.configuration import config

    return tracing_from(config(TracingSettings), project, untracked_paths=untracked_paths)


def require_otel_extra() -> None:
    """Refuse to start (:class:`fw.StartupError`) when the OpenTelemetry SDK or its OTLP/HTTP
    exporter (both in the ``otel`` extra) is not installed."""
    require_extra("otel", "observability.tracing.enabled", True, "tracing")
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        raise StartupError(
            "observability.tracing.enabled", True, f"tracing needs the otel extra: {pip_install('otel')}"
        ) from None


def traces_url(endpoint: str) -> str:
    """The URL spans are posted to: ``endpoint`` itself, or with ``/v1/traces`` when it names no path
    (``http://collector:4318`` -> ``http://collector:4318/v1/traces``)."""
    parts = urlsplit(endpoint)
    if parts.path in ("", "/"):
        return urlunsplit(parts._replace(path=TRACES_PATH))
    return endpoint


class Tracing:
    """The App's tracer provider, the request hook and the events sink.

    ``endpoint`` empty: the exporter's own default (``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
    ``OTEL_EXPORTER_OTLP_ENDPOINT``, else ``http://localhost:4318``). ``exporter`` replaces the
    OTLP exporter (tests). ``untracked_paths`` (the health endpoints) get no span at all.
    """

    def __init__(
        self,
        *,
        service_name: str,
        endpoint: str = "",
        sample_ratio: float = 1.0,
        exporter: SpanExporter | None = None,
        untracked_paths: Collection[str] = (),
    ) -> None:
        require_otel_extra()
        from opentelemetry import context, trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased, Sampler, TraceIdRatioBased
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter(endpoint=traces_url(endpoint)) if endpoint else OTLPSpanExporter()
        # Every root traced (the default) needs no ratio arithmetic per request.
        root: Sampler = ALWAYS_ON if sample_ratio >= 1.0 else TraceIdRatioBased(sample_ratio)
        self.provider = TracerProvider(
            sampler=ParentBased(root),
            resource=Resource.create({"service.name": service_name}),
            # The provider lives as long as the process: an App's shutdown only flushes it, since
            # fw run's preflight starts and stops the App once before serving it.
            shutdown_on_exit=True,
        )
        self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self._tracer = self.provider.get_tracer("fw")
        self._propagator = TraceContextTextMapPropagator()
        self._untracked = frozenset(untracked_paths)
        self._attach = context.attach
        self._detach = context.detach
        self._in_context = trace.set_span_in_context
        self._current = trace.get_current_span
        self._server = trace.SpanKind.SERVER
        self._client = trace.SpanKind.CLIENT
        self._internal = trace.SpanKind.INTERNAL

    # -- the request hook ------------------------------------------------------------------

    def start(self, scope: Scope) -> object:
        if scope["type"] != "http" or scope["path"] in self._untracked:
            return None
        parent = None
        traceparent = tracestate = None
        for name, value in scope["headers"]:
            if name == b"traceparent":
                traceparent = value.decode("latin-1")
            elif name == b"tracestate":
                tracestate = value.decode("latin-1")
        if traceparent is not None:
            carrier = {"traceparent": traceparent}
            if tracestate is not None:
                carrier["tracestate"] = tracestate
            parent = self._propagator.extract(carrier)
        method: str = scope["method"]
        attributes: dict[str, str] = {
            "http.request.method": method if method in KNOWN_METHODS else "_OTHER",
            "url.scheme": scope.get("scheme", "http"),
        }
        request_id = scope.get("fw.request_id")
        if request_id:
            attributes["fw.request_id"] = request_id
        span = self._tracer.start_span(
            attributes["http.request.method"] if method in KNOWN_METHODS else "HTTP",
            context=parent,
            kind=self._server,
            attributes=attributes,
        )
        token = self._attach(self._in_context(span, parent))
        return (span, token)

    def finish(self, state: object, scope: Scope, status: int, duration: float) -> None:
        if state is None:
            return
        span: Span
        token: Any
        span, token = state  # type: ignore[misc]
        self._detach(token)
        if scope.get("fw.untracked"):
            return  # never ended, so never exported
        attributes: dict[str, str | int] = {"http.response.status_code": status}
        route = scope.get("fw.route")
        if route:
            method = scope["method"]
            span.update_name(f"{method if method in KNOWN_METHODS else 'HTTP'} {route}")
            attributes["http.route"] = route
        decision = scope.get("fw.auth")
        if decision is not None:
            mode, outcome, reason = decision
            attributes["fw.auth.mode"] = mode
            attributes["fw.auth.outcome"] = outcome
            if reason:
                attributes["fw.auth.reason"] = reason
        if status >= 500:
            from opentelemetry.trace import Status, StatusCode

            attributes["error.type"] = str(status)
            span.set_status(Status(StatusCode.ERROR))
        span.set_attributes(attributes)
        span.end()

    # -- the events sink ---------------------------------------------------------------------

    def child(self, name: str, attributes: Mapping[str, str | int]) -> events.SpanHandle:
        parent = self._current()
        if not parent.get_span_context().is_valid:
            return _NO_CHILD  # outside a request (startup, a background task): not traced
        kind = self._client if "http.request.method" in attributes else self._internal
        return _Child(self, self._tracer.start_span(name, kind=kind, attributes=attributes))

    def step(self, name: str) -> _Step:
        return _Step(self, name)

    def _headers(self, span: Span) -> Mapping[str, str]:
        carrier: dict[str, str] = {}
        self._propagator.inject(carrier, context=self._in_context(span))
        return carrier

    # -- lifetime ----------------------------------------------------------------------------

    def flush(self, timeout_millis: int = 30_000) -> bool:
        """Export every ended span now (tests call it before reading their exporter)."""
        return self.provider.force_flush(timeout_millis)

    def shutdown(self) -> None:
        """Export what is left and stop the exporter (blocking: call it off the event loop)."""
        self.provider.shutdown()

    def extension(self) -> TracingExtension:
        return TracingExtension(self)


def _failed(span: Span, error: BaseException) -> None:
    from opentelemetry.trace import Status, StatusCode

    # The type alone: an exception's message may quote what it failed on.
    span.set_attribute("error.type", type(error).__qualname__)
    span.set_status(Status(StatusCode.ERROR))


class _Child:
    __slots__ = ("_span", "_tracing")

    def __init__(self, tracing: Tracing, span: Span) -> None:
        self._tracing = tracing
        self._span = span

    def headers(self) -> Mapping[str, str]:
        return self._tracing._headers(self._span)

    def end(self, error: BaseException | None, attributes: Mapping[str, str | int]) -> None:
        span = self._span
        if attributes:
            span.set_attributes(attributes)
        if error is not None:
            _failed(span, error)
        span.end()


class _NoChild:
    __slots__ = ()

    def headers(self) -> Mapping[str, str]:
        return {}

    def end(self, error: BaseException | None, attributes: Mapping[str, str | int]) -> None:
        return None


_NO_CHILD = _NoChild()


class _Step:
    """A span current while a block runs (within one task), so the calls inside nest under it."""

    __slots__ = ("_name", "_span", "_token", "_tracing")

    def __init__(self, tracing: Tracing, name: str) -> None:
        self._tracing = tracing
        self._name = name
        self._span: Any = None
        self._token: Any = None

    def __enter__(self) -> None:
        tracing = self._tracing
        if not tracing._current().get_span_context().is_valid:
            return
        self._span = span = tracing._tracer.start_span(self._name, kind=tracing._internal)
        self._token = tracing._attach(tracing._in_context(span))

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        span = self._span
        if span is None:
            return
        self._tracing._detach(self._token)
        if error is not None:
            _failed(span, error)
        span.end()


class TracingExtension:
    """Store, provider and step reports reach the tracing from the moment this is built (before
    any extension starts, so before stores open); at shutdown the spans ended so far are exported.

    The provider stays open after a shutdown (it closes when the process exits): ``fw run``
    starts and stops an App once to check it before serving it, and the App served then must
    still export its spans.
    """

    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing
        events.activate(tracing=tracing)

    def routes(self) -> Sequence[BaseRoute]:
        return []

    def middleware(self) -> Sequence[Middleware]:
        return []

    async def startup(self) -> None:
        events.activate(tracing=self.tracing)

    async def shutdown(self) -> None:
        from starlette.concurrency import run_in_threadpool

        events.deactivate(self.tracing)
        await run_in_threadpool(self.tracing.flush)


__all__ = [
    "KNOWN_METHODS",
    "Tracing",
    "TracingExtension",
    "TracingSettings",
    "exporting_to",
    "require_otel_extra",
    "sample_ratio",
    "traces_url",
    "tracing_from",
    "tracing_hook",
]
