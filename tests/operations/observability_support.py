"""What the metrics and tracing tests share: hand-made request scopes, a scrape read back into
numbers, sinks that never outlive their test, and whether the App wires observability yet."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from fw.operations import events


def http_scope(
    method: str = "GET",
    path: str = "/orders/7",
    *,
    route: str | None = "/orders/{id}",
    auth: tuple[str, str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    untracked: bool = False,
    request_id: str = "0123456789abcdef0123456789abcdef",
) -> dict[str, Any]:
    """An ASGI HTTP scope as the observer hands it to the hooks once the request was served."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8080),
        "fw.request_id": request_id,
    }
    if route is not None:
        scope["fw.route"] = route
    if auth is not None:
        scope["fw.auth"] = auth
    if untracked:
        scope["fw.untracked"] = True
    return scope


def samples(text: str | bytes) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """A scrape as ``(sample name, labels) -> value``."""
    from prometheus_client.parser import text_string_to_metric_families

    if isinstance(text, bytes):
        text = text.decode()
    found: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(scraped: Mapping[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    """The sample ``name`` with exactly these labels (0 when absent, as Prometheus reads it)."""
    return scraped.get((name, frozenset(labels.items())), 0.0)


def total(scraped: Mapping[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    """The sum of every sample ``name`` whose labels include these."""
    wanted = set(labels.items())
    return sum(v for (sample, have), v in scraped.items() if sample == name and wanted <= have)


@contextlib.contextmanager
def sinks(metrics: object = None, tracing: object = None) -> Iterator[None]:
    """Report store, provider and JWKS events to these sinks for the block only."""
    events.activate(metrics=metrics, tracing=tracing)  # type: ignore[arg-type]
    try:
        yield
    finally:
        events.deactivate(*(sink for sink in (metrics, tracing) if sink is not None))


def in_memory_tracing(**options: Any) -> tuple[Any, Any]:
    """A :class:`~fw.operations.tracing.Tracing` exporting to the SDK's in-memory exporter."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from fw.operations.tracing import Tracing

    exporter = InMemorySpanExporter()
    options.setdefault("service_name", "shop")
    return Tracing(exporter=exporter, **options), exporter


def finished_spans(tracing: Any, exporter: Any) -> list[Any]:
    tracing.flush()
    return list(exporter.get_finished_spans())


def exported_text(spans: Iterable[Any]) -> str:
    """Everything a span carries to a collector, as one text to search."""
    parts: list[str] = []
    for span in spans:
        parts.append(span.name)
        parts.extend(f"{key}={value!r}" for key, value in (span.attributes or {}).items())
        for event in span.events:
            parts.append(event.name)
            parts.extend(f"{key}={value!r}" for key, value in (event.attributes or {}).items())
        for link in span.links:
            parts.extend(f"{key}={value!r}" for key, value in (link.attributes or {}).items())
        parts.extend(f"{key}={value!r}" for key, value in span.resource.attributes.items())
        parts.append(span.status.description or "")
    return "\n".join(parts)
