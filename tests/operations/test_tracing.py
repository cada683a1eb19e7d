"""The tracing hook and its child spans, exported to the SDK's in-memory exporter, and once end to
end to an OTLP/HTTP receiver on loopback."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from fw.auth.tokens.fetch import fetch_bounded
from fw.errors import StartupError
from fw.operations import events
from fw.operations.observer import RequestObserver
from fw.operations.tracing import Tracing, TracingSettings, traces_url, tracing_from

from .observability_support import finished_spans, http_scope, in_memory_tracing, sinks
from .otlp_receiver import OtlpReceiver

pytestmark = pytest.mark.timeout(60)

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


@pytest.fixture
def traced() -> Iterator[tuple[Tracing, Any]]:
    tracing, exporter = in_memory_tracing()
    with sinks(tracing=tracing):
        yield tracing, exporter
    tracing.shutdown()


def _by_name(spans: list[Any]) -> dict[str, Any]:
    return {span.name: span for span in spans}


def test_a_request_is_one_server_span_named_by_method_and_route_template(traced: tuple[Tracing, Any]) -> None:
    from opentelemetry.trace import SpanKind, StatusCode

    tracing, exporter = traced
    scope = http_scope("GET", "/orders/7", route="/orders/{id}", auth=("jwt_only", "allowed", ""))
    tracing.finish(tracing.start(scope), scope, 200, 0.01)
    [span] = finished_spans(tracing, exporter)
    assert span.name == "GET /orders/{id}"
    assert span.kind == SpanKind.SERVER
    assert span.attributes["http.request.method"] == "GET"
    assert span.attributes["http.route"] == "/orders/{id}"
    assert span.attributes["http.response.status_code"] == 200
    assert span.attributes["fw.request_id"] == scope["fw.request_id"]
    assert span.attributes["fw.auth.outcome"] == "allowed"
    assert span.status.status_code == StatusCode.UNSET
    assert span.parent is None
    assert span.resource.attributes["service.name"] == "shop"


def test_an_incoming_traceparent_is_continued(traced: tuple[Tracing, Any]) -> None:
    tracing, exporter = traced
    scope = http_scope(headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01", "tracestate": "k=v"})
    tracing.finish(tracing.start(scope), scope, 200, 0.01)
    [span] = finished_spans(tracing, exporter)
    assert f"{span.context.trace_id:032x}" == TRACE_ID
    assert span.parent is not None and f"{span.parent.span_id:016x}" == PARENT_ID
    assert span.parent.is_remote


def test_a_malformed_traceparent_starts_a_new_trace(traced: tuple[Tracing, Any]) -> None:
    tracing, exporter = traced
    scope = http_scope(headers={"traceparent": "00-not-a-trace-01"})
    tracing.finish(tracing.start(scope), scope, 200, 0.01)
    [span] = finished_spans(tracing, exporter)
    assert span.parent is None


def test_an_unmatched_request_is_named_by_its_method_alone_and_a_5xx_is_an_error(
    traced: tuple[Tracing, Any],
) -> None:
    from opentelemetry.trace import StatusCode

    tracing, exporter = traced
    missing = http_scope("GET", "/wp-admin", route=None)
    tracing.finish(tracing.start(missing), missing, 404, 0.001)
    failing = http_scope("POST", "/orders", route="/orders")
    tracing.finish(tracing.start(failing), failing, 500, 0.001)
    invented = http_scope("BREW", "/pot", route=None)
    tracing.finish(tracing.start(invented), invented, 405, 0.001)
    spans = finished_spans(tracing, exporter)
    assert [span.name for span in spans] == ["GET", "POST /orders", "HTTP"]
    assert "http.route" not in spans[0].attributes
    assert spans[0].status.status_code == StatusCode.UNSET
    assert spans[1].status.status_code == StatusCode.ERROR
    assert spans[1].attributes["error.type"] == "500"
    assert spans[2].attributes["http.request.method"] == "_OTHER"
    assert all("/wp-admin" not in str(dict(span.attributes)) for span in spans)


def test_an_untracked_request_exports_no_span(traced: tuple[Tracing, Any]) -> None:
    tracing, exporter = traced
    probe = http_scope("GET", "/readyz", route="/readyz", untracked=True)
    tracing.finish(tracing.start(probe), probe, 200, 0.001)
    assert finished_spans(tracing, exporter) == []
    skipped, _ = in_memory_tracing(untracked_paths=["/healthz"])
    assert skipped.start(http_scope("GET", "/healthz", route=None)) is None
    skipped.shutdown()


class _Sessions:
    name = "redis"

    async def load(self, value: str) -> dict[str, str] | None:
        await asyncio.sleep(0)
        return {"account_id": "alice"} if value == "good" else None


class _Revocations:
    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> None:
        raise ConnectionError(f"cannot reach the store for {token_id}")


class _Store:
    name = "rdb"

    def __init__(self) -> None:
        self.revocations = _Revocations()
        self.accounts = object()


async def test_store_calls_and_the_auth_steps_are_child_spans_of_the_request(
    traced: tuple[Tracing, Any],
) -> None:
    from opentelemetry.trace import SpanKind, StatusCode

    tracing, exporter = traced
    sessions = events.instrument_store(_Sessions(), "redis")
    store = events.instrument_store(_Store(), "rdb")
    scope = http_scope("GET", "/account", route="/account")
    state = tracing.start(scope)
    with events.session_read():
        assert await sessions.load("good") == {"account_id": "alice"}
    with pytest.raises(ConnectionError), events.bearer_verification():
        await store.revocations.lookup("https://issuer", "jti-secret-1", "alice")
    tracing.finish(state, scope, 503, 0.01)
    spans = _by_name(finished_spans(tracing, exporter))
    server = spans["GET /account"]
    read, verify = spans[events.SESSION_READ], spans[events.BEARER_VERIFICATION]
    load, lookup = spans["store sessions.load"], spans["store revocations.lookup"]
    assert read.parent.span_id == server.context.span_id
    assert verify.parent.span_id == server.context.span_id
    assert load.parent.span_id == read.context.span_id
    assert lookup.parent.span_id == verify.context.span_id
    assert {span.context.trace_id for span in spans.values()} == {server.context.trace_id}
    assert load.kind == SpanKind.INTERNAL
    assert load.attributes["db.system.name"] == "redis"
    assert load.attributes["db.operation.name"] == "sessions.load"
    assert lookup.status.status_code == StatusCode.ERROR
    assert lookup.attributes["error.type"] == "ConnectionError"
    assert verify.status.status_code == StatusCode.ERROR
    assert "jti-secret-1" not in repr([dict(span.attributes) for span in spans.values()])
    assert all(not span.events for span in spans.values())


async def test_a_store_call_outside_a_request_is_not_traced(traced: tuple[Tracing, Any]) -> None:
    tracing, exporter = traced
    sessions = events.instrument_store(_Sessions(), "redis")
    await sessions.load("good")
    with events.session_read():
        await sessions.load("good")
    assert finished_spans(tracing, exporter) == []


async def test_a_provider_call_is_a_client_span_whose_traceparent_the_provider_receives(
    traced: tuple[Tracing, Any],
) -> None:
    from opentelemetry.trace import SpanKind

    tracing, exporter = traced
    received: list[httpx2.Request] = []

    def provider(request: httpx2.Request) -> httpx2.Response:
        received.append(request)
        return httpx2.Response(200, json={"access_token": "at-secret"})

    incoming = {"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}
    scope = http_scope("GET", "/auth/callback", route="/auth/callback", headers=incoming)
    state = tracing.start(scope)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(provider)) as http:
        await fetch_bounded(
            http, "POST", "https://idp.example/oauth/token", endpoint="token", data={"code": "code-secret"}
        )
    tracing.finish(state, scope, 303, 0.05)
    spans = _by_name(finished_spans(tracing, exporter))
    call = spans["POST token"]
    assert call.kind == SpanKind.CLIENT
    assert call.parent.span_id == spans["GET /auth/callback"].context.span_id
    assert call.attributes["server.address"] == "idp.example"
    assert call.attributes["fw.provider.endpoint"] == "token"
    assert call.attributes["http.response.status_code"] == 200
    [request] = received
    version, trace_id, span_id, flags = request.headers["traceparent"].split("-")
    assert (version, trace_id, flags) == ("00", TRACE_ID, "01")
    assert span_id == f"{call.context.span_id:016x}"


def test_sampling_keeps_a_callers_decision_and_records_the_configured_share() -> None:
    tracing, exporter = in_memory_tracing(sample_ratio=0.0)
    try:
        alone = http_scope()
        tracing.finish(tracing.start(alone), alone, 200, 0.001)
        sampled = http_scope(headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"})
        tracing.finish(tracing.start(sampled), sampled, 200, 0.001)
        [span] = finished_spans(tracing, exporter)
        assert f"{span.context.trace_id:032x}" == TRACE_ID
    finally:
        tracing.shutdown()


def test_tracing_settings_are_checked_when_the_app_is_built() -> None:
    def settings(**values: Any) -> TracingSettings:
        return TracingSettings(
            **{"enabled": True, "endpoint": "", "service_name": "", "sample_ratio": "1.0", **values}
        )

    assert tracing_from(settings(enabled=False), "shop") is None
    with pytest.raises(StartupError, match=r"observability\.tracing\.sample_ratio = '1\.5'.*from 0 to 1"):
        tracing_from(settings(sample_ratio="1.5"), "shop")
    with pytest.raises(StartupError, match=r"observability\.tracing\.sample_ratio = 'half'"):
        tracing_from(settings(sample_ratio="half"), "shop")
    with pytest.raises(StartupError, match=r"observability\.tracing\.endpoint = 'collector:4318'"):
        tracing_from(settings(endpoint="collector:4318"), "shop")
    tracing = tracing_from(settings(endpoint="http://127.0.0.1:4318", sample_ratio="0.25"), "shop")
    assert tracing is not None
    assert tracing.provider.resource.attributes["service.name"] == "shop"
    tracing.shutdown()
    named = tracing_from(settings(service_name="orders-api"), "shop")
    assert named is not None and named.provider.resource.attributes["service.name"] == "orders-api"
    named.shutdown()
    assert traces_url("http://collector:4318") == "http://collector:4318/v1/traces"
    assert traces_url("http://collector:4318/") == "http://collector:4318/v1/traces"
    assert traces_url("https://otel.example/custom/traces") == "https://otel.example/custom/traces"


def test_tracing_without_the_sdk_installed_refuses_to_start_naming_the_pip_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    settings = TracingSettings(enabled=True, endpoint="", service_name="", sample_ratio="1.0")
    with pytest.raises(StartupError) as refused:
        tracing_from(settings, "shop")
    assert refused.value.key == "observability.tracing.enabled"
    assert "pip install 'fw-web[otel]'" in str(refused.value)


def _observed_app(tracing: Tracing) -> Any:
    """A Starlette app recording its route template as fw's router does, behind the observer."""

    async def order(request: Request) -> JSONResponse:
        request.scope["fw.route"] = "/orders/{id}"
        return JSONResponse({"id": request.path_params["id"]})

    async def hello(request: Request) -> PlainTextResponse:
        request.scope["fw.route"] = "/hello"
        return PlainTextResponse("hello")

    app = Starlette(routes=[Route("/orders/{id}", order), Route("/hello", hello)])
    return RequestObserver(app, [tracing])


async def test_spans_reach_an_otlp_http_receiver_on_loopback_end_to_end() -> None:
    with OtlpReceiver() as receiver:
        tracing = Tracing(service_name="shop-e2e", endpoint=receiver.endpoint)
        app = _observed_app(tracing)
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://t") as client:
            first = await client.get("/orders/42", headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"})
            second = await client.get("/hello")
        await asyncio.to_thread(tracing.shutdown)  # what the App's shutdown does: export what is left
        assert first.status_code == 200 and second.status_code == 200
        spans = {span.name: span for span in receiver.spans}
    assert receiver.posts >= 1
    assert receiver.content_types[0] == "application/x-protobuf"
    assert set(spans) == {"GET /orders/{id}", "GET /hello"}
    order = spans["GET /orders/{id}"]
    assert order.trace_id == TRACE_ID
    assert order.parent_span_id == PARENT_ID
    assert order.kind == 2  # SPAN_KIND_SERVER
    assert order.attributes["http.route"] == "/orders/{id}"
    assert order.attributes["http.response.status_code"] == 200
    assert order.attributes["fw.request_id"] == first.headers["x-request-id"]
    assert order.resource["service.name"] == "shop-e2e"
    assert spans["GET /hello"].parent_span_id == ""
