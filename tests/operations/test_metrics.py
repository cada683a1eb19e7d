"""The metrics hook, the events it feeds on and the scrape endpoint, on hand-made requests.

Each test builds its own :class:`~fw.operations.metrics.Metrics` (its own registry), drives it
the way the request observer and fw's store and provider code do, and reads the numbers back
from the Prometheus text the scrape endpoint renders.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from fw.auth.tokens.errors import Unreachable
from fw.auth.tokens.fetch import fetch_bounded
from fw.auth.tokens.jwks import JwksCache
from fw.core.router import Router
from fw.core.routes import Route
from fw.core.serve import RequestPath
from fw.errors import StartupError
from fw.operations import events
from fw.operations.metrics import (
    SERIES,
    Metrics,
    MetricsSettings,
    metrics_from,
    metrics_reference_page,
)
from fw.testing.issuer import LocalIssuer

from .observability_support import http_scope, samples, sinks, total, value

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def metrics() -> Iterator[Metrics]:
    metrics = Metrics()
    with sinks(metrics=metrics):
        yield metrics


def served(metrics: Metrics, scope: dict[str, Any], status: int = 200, duration: float = 0.003) -> None:
    metrics.finish(metrics.start(scope), scope, status, duration)


def test_requests_are_counted_by_method_route_template_and_status(metrics: Metrics) -> None:
    served(metrics, http_scope("GET", "/orders/7"))
    served(metrics, http_scope("GET", "/orders/8"))
    served(metrics, http_scope("POST", "/orders/9"), 201)
    served(metrics, http_scope("GET", "/orders/10"), 500)
    scraped = samples(metrics.render())
    name = "fw_http_requests_total"
    assert value(scraped, name, method="GET", route="/orders/{id}", status="200") == 2
    assert value(scraped, name, method="POST", route="/orders/{id}", status="201") == 1
    assert value(scraped, name, method="GET", route="/orders/{id}", status="500") == 1
    assert not [labels for (sample, labels) in scraped if ("route", "/orders/7") in labels]
    count = "fw_http_request_duration_seconds_count"
    assert value(scraped, count, method="GET", route="/orders/{id}") == 3
    assert value(scraped, "fw_http_request_duration_seconds_sum", method="GET", route="/orders/{id}") == (
        pytest.approx(0.009)
    )
    bucket = "fw_http_request_duration_seconds_bucket"
    assert value(scraped, bucket, method="GET", route="/orders/{id}", le="0.0025") == 0
    assert value(scraped, bucket, method="GET", route="/orders/{id}", le="0.005") == 3


def test_a_request_no_route_matched_is_counted_as_unmatched_never_by_its_path(metrics: Metrics) -> None:
    for path in ("/wp-admin", "/.env", "/orders/7/x"):
        served(metrics, http_scope("GET", path, route=None), 404)
    scraped = samples(metrics.render())
    assert value(scraped, "fw_http_requests_total", method="GET", route="unmatched", status="404") == 3
    assert b"wp-admin" not in metrics.render()


def test_a_method_a_client_invents_is_counted_as_other_so_series_cannot_grow(metrics: Metrics) -> None:
    for n in range(300):
        served(metrics, http_scope(f"BREW{n}", "/x", route=None), 405)
    scraped = samples(metrics.render())
    assert value(scraped, "fw_http_requests_total", method="_OTHER", route="unmatched", status="405") == 300
    assert total(scraped, "fw_http_requests_total") == 300
    assert len([name for (name, _) in scraped if name == "fw_http_requests_total"]) == 1


def test_auth_decisions_are_counted_by_mode_outcome_and_reason(metrics: Metrics) -> None:
    decisions = [
        ("jwt_only", "allowed", ""),
        ("jwt_only", "allowed", ""),
        ("jwt_only", "rejected", "expired"),
        ("jwt_only", "rejected", "bad_signature"),
        ("jwt_only", "rejected", "expired"),
        ("jwt_only", "anonymous", "missing"),
    ]
    for decision in decisions:
        served(metrics, http_scope(auth=decision), 401 if decision[1] == "rejected" else 200)
    served(metrics, http_scope())  # no middleware decided: no decision counted
    scraped = samples(metrics.render())
    name = "fw_auth_decisions_total"
    assert value(scraped, name, mode="jwt_only", outcome="allowed", reason="") == 2
    assert value(scraped, name, mode="jwt_only", outcome="rejected", reason="expired") == 2
    assert value(scraped, name, mode="jwt_only", outcome="rejected", reason="bad_signature") == 1
    assert value(scraped, name, mode="jwt_only", outcome="anonymous", reason="missing") == 1
    assert total(scraped, name) == 6
    assert value(scraped, "fw_http_requests_total", method="GET", route="/orders/{id}", status="401") == 3


def test_an_untracked_request_such_as_a_health_probe_is_not_counted(metrics: Metrics) -> None:
    served(metrics, http_scope("GET", "/readyz", route="/readyz", untracked=True))
    served(metrics, http_scope("GET", "/readyz", route="/readyz", untracked=True), 503)
    scraped = samples(metrics.render())
    assert total(scraped, "fw_http_requests_total") == 0
    assert total(scraped, "fw_http_request_duration_seconds_count") == 0


class _Revocations:
    def __init__(self) -> None:
        self.asked: list[tuple[str, str | None]] = []

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> str:
        await asyncio.sleep(0.002)
        self.asked.append((issuer, token_id))
        return "entries"


class _Sessions:
    name = "redis"

    async def load(self, value: str) -> None:
        raise ConnectionError("down")

    async def save(self, record: object, expires_at: float) -> str:
        return "cookie-value"


class _AuthStore:
    """The shape of an auth store: record stores as attributes, sessions() handing out one more."""

    name = "rdb"

    def __init__(self) -> None:
        self.revocations = _Revocations()
        self.accounts = object()
        self.closed = False

    def sessions(self) -> _Sessions:
        return _Sessions()

    async def close(self) -> None:
        self.closed = True


def test_a_store_is_returned_itself_while_metrics_and_tracing_are_off() -> None:
    assert not events.active()
    store = _AuthStore()
    assert events.instrument_store(store, "rdb") is store
    sessions = _Sessions()
    assert events.instrument_store(sessions, "redis") is sessions


async def test_store_calls_are_timed_per_backend_and_operation(metrics: Metrics) -> None:
    store = events.instrument_store(_AuthStore(), "rdb")
    assert store.name == "rdb"
    assert await store.revocations.lookup("https://issuer", "jti-1", None) == "entries"
    assert await store.revocations.lookup("https://issuer", "jti-2", None) == "entries"
    sessions = store.sessions()
    assert await sessions.save({}, 0.0) == "cookie-value"
    with pytest.raises(ConnectionError):
        await sessions.load("x")  # a failing call is timed too
    await store.close()
    redis = events.instrument_store(_Sessions(), "redis")
    with pytest.raises(ConnectionError):
        await redis.load("y")
    scraped = samples(metrics.render())
    name = "fw_store_operation_duration_seconds"
    assert value(scraped, f"{name}_count", backend="rdb", operation="revocations.lookup") == 2
    assert value(scraped, f"{name}_sum", backend="rdb", operation="revocations.lookup") >= 0.004
    assert value(scraped, f"{name}_count", backend="rdb", operation="sessions.save") == 1
    assert value(scraped, f"{name}_count", backend="rdb", operation="sessions.load") == 1
    assert value(scraped, f"{name}_count", backend="rdb", operation="close") == 1
    assert value(scraped, f"{name}_count", backend="redis", operation="sessions.load") == 1


async def test_a_real_store_reports_its_calls_under_its_backend(metrics: Metrics, tmp_path: Any) -> None:
    from fw.auth.stores.rdb import RdbStore
    from fw.rdb.migrate import upgrade

    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    await upgrade(dsn)
    store = events.instrument_store(RdbStore.open(dsn), "rdb")
    try:
        await store.require(["revocations", "sessions"])
        entries = await store.revocations.lookup("https://issuer.example", "jti", "alice")
        assert entries is not None
        sessions = store.sessions()
        cookie = await sessions.save({"account_id": "alice"}, time.time() + 60)
        assert (await sessions.load(cookie)) is not None
    finally:
        await store.close()
    scraped = samples(metrics.render())
    name = "fw_store_operation_duration_seconds_count"
    for operation in ("require", "revocations.lookup", "sessions.save", "sessions.load", "close"):
        assert value(scraped, name, backend="rdb", operation=operation) == 1, operation


def _transport(answers: dict[str, Any], seen: list[httpx2.Request]) -> httpx2.MockTransport:
    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        found = answers[request.url.path]
        if isinstance(found, Exception):
            raise found
        return found

    return httpx2.MockTransport(answer)


async def test_provider_calls_are_counted_by_provider_endpoint_and_outcome(metrics: Metrics) -> None:
    seen: list[httpx2.Request] = []
    answers = {
        "/token": httpx2.Response(200, json={"access_token": "x"}),
        "/refused": httpx2.Response(400, json={"error": "invalid_grant"}),
        "/down": httpx2.ConnectError("refused"),
    }
    async with httpx2.AsyncClient(transport=_transport(answers, seen)) as http:
        await fetch_bounded(http, "POST", "https://idp.example:8443/token", endpoint="token", data={"a": "b"})
        await fetch_bounded(http, "POST", "https://idp.example/refused", endpoint="token", expect=None)
        with pytest.raises(Unreachable):
            await fetch_bounded(http, "GET", "https://idp.example/down", endpoint="userinfo")
    scraped = samples(metrics.render())
    name = "fw_provider_requests_total"
    assert value(scraped, name, provider="idp.example", endpoint="token", outcome="ok") == 1
    assert value(scraped, name, provider="idp.example", endpoint="token", outcome="error") == 1
    assert value(scraped, name, provider="idp.example", endpoint="userinfo", outcome="unreachable") == 1
    assert "traceparent" not in seen[0].headers  # tracing is off: nothing added


async def test_jwks_refreshes_are_counted_by_outcome(metrics: Metrics) -> None:
    with LocalIssuer() as issuer:
        async with httpx2.AsyncClient() as http:
            keys = JwksCache(issuer.jwks_uri, http)
            await keys.refresh()
            await keys.refresh()
            broken = JwksCache(f"{issuer.url}/no-such-keys", http)
            with pytest.raises(Exception, match="HTTP 404"):
                await broken.refresh()
    scraped = samples(metrics.render())
    assert value(scraped, "fw_jwks_refresh_total", outcome="ok") == 2
    assert value(scraped, "fw_jwks_refresh_total", outcome="error") == 1
    requests = "fw_provider_requests_total"
    assert value(scraped, requests, provider="127.0.0.1", endpoint="jwks", outcome="ok") == 2


async def test_reports_reach_no_metrics_once_the_app_shut_down() -> None:
    metrics = Metrics()
    extension = metrics.extension()
    assert events.active()
    await extension.startup()
    await extension.shutdown()
    assert not events.active()
    events.jwks_refresh("ok")
    assert total(samples(metrics.render()), "fw_jwks_refresh_total") == 0


async def test_a_scrape_renders_in_a_worker_thread_so_requests_keep_being_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    metrics = Metrics()
    rendering = metrics.render

    def slow_render() -> bytes:  # a scrape of very many series, or a slow multiprocess directory
        time.sleep(1.0)
        return rendering()

    monkeypatch.setattr(metrics, "render", slow_render)

    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse("hello")

    app = RequestPath(Router([metrics.route(), Route("/hello", hello, methods=["GET"])]))
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://t") as client:
        scrape = asyncio.create_task(client.get("/metrics"))
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        answer = await client.get("/hello")
        elapsed = time.perf_counter() - started
        assert not scrape.done()
        scraped = await scrape
    assert answer.text == "hello"
    assert elapsed < 0.5
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain; version=")
    assert "# TYPE fw_http_requests_total counter" in scraped.text


def test_the_metrics_route_is_a_get_route_on_the_configured_path() -> None:
    route = Metrics(path="/internal/metrics").route()
    assert route.path == "/internal/metrics"
    assert route.methods is not None and "GET" in route.methods


def test_metrics_without_prometheus_client_installed_refuse_to_start_naming_the_pip_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "prometheus_client", None)
    with pytest.raises(StartupError) as refused:
        metrics_from(MetricsSettings(enabled=True, path="/metrics"))
    assert refused.value.key == "observability.metrics.enabled"
    assert "pip install 'fw-web[metrics]'" in str(refused.value)


def test_metrics_left_off_build_nothing_and_a_path_without_a_slash_is_refused() -> None:
    assert metrics_from(MetricsSettings(enabled=False, path="/metrics")) is None
    with pytest.raises(StartupError, match=r"observability\.metrics\.path = 'metrics'"):
        metrics_from(MetricsSettings(enabled=True, path="metrics"))


def test_the_reference_page_lists_exactly_the_series_a_scrape_exports_with_their_labels(
    metrics: Metrics,
) -> None:
    served(metrics, http_scope(auth=("jwt_only", "allowed", "")))
    metrics.store_observed("rdb", "sessions.load", 0.001)
    metrics.provider_observed("idp.example", "token", "ok")
    metrics.jwks_observed("ok")
    exported: dict[str, set[str]] = {}
    for (sample, labels), _ in samples(metrics.render()).items():
        base = re.sub(r"_(bucket|count|sum|created)$", "", sample)
        base = base if base.endswith("_total") or base.endswith("_seconds") else f"{base}_total"
        exported.setdefault(base, set()).update(name for name, _ in labels if name != "le")
    page = metrics_reference_page()
    listed: dict[str, set[str]] = {}
    for line in page.splitlines():
        found = re.match(r"\| `(fw_[a-z_]+)` \| (counter|histogram) \| ([^|]+) \| (.+) \|$", line)
        if found:
            listed[found[1]] = set(re.findall(r"`([a-z_]+)`: ", found[4]))
    assert listed == exported
    assert [series.name for series in SERIES] == list(listed)
    for series in SERIES:
        assert series.help in page


async def test_the_provider_seam_costs_one_shared_object_while_off_and_counts_once_on() -> None:
    assert not events.active()
    first = events.provider_request("idp.example", "token")
    assert first is events.provider_request("idp.example", "userinfo") is events.provider_call("u", "jwks")
    async with first as call:
        assert dict(call.headers) == {}
        call.answered(200)
    metrics = Metrics()
    with sinks(metrics=metrics):
        async with events.provider_request("idp.example", "token", method="POST") as call:
            call.answered(503)
        with pytest.raises(TimeoutError):
            async with events.provider_request("idp.example", "token", method="POST"):
                raise TimeoutError
        async with events.provider_call(
            "https://user:s3cr3t@login.example:8443/t?code=c0de", "token"
        ) as call:
            call.answered(200)
    scraped = samples(metrics.render())
    name = "fw_provider_requests_total"
    assert value(scraped, name, provider="idp.example", endpoint="token", outcome="error") == 1
    assert value(scraped, name, provider="idp.example", endpoint="token", outcome="unreachable") == 1
    assert value(scraped, name, provider="login.example", endpoint="token", outcome="ok") == 1
    assert "s3cr3t" not in metrics.render().decode() and "c0de" not in metrics.render().decode()


async def test_a_method_replaced_through_the_instrumented_store_is_the_one_called_and_timed(
    metrics: Metrics,
) -> None:
    store = events.instrument_store(_AuthStore(), "rdb")
    assert await store.revocations.lookup("i", "t", None) == "entries"

    async def replaced(issuer: str, token_id: str | None, subject: str | None) -> str:
        return "replaced"

    store.revocations.lookup = replaced
    assert await store.revocations.lookup("i", "t", None) == "replaced"
    scraped = samples(metrics.render())
    count = "fw_store_operation_duration_seconds_count"
    assert value(scraped, count, backend="rdb", operation="revocations.lookup") == 2


async def test_every_session_store_reports_its_calls_under_its_own_backend(
    metrics: Metrics, session_store: Any
) -> None:
    store = events.instrument_store(session_store, session_store.name)
    cookie = await store.save({"account_id": "alice"}, time.time() + 60)
    assert (await store.load(cookie)) is not None
    await store.delete(cookie)
    scraped = samples(metrics.render())
    count = "fw_store_operation_duration_seconds_count"
    for operation in ("sessions.save", "sessions.load", "sessions.delete"):
        assert value(scraped, count, backend=session_store.name, operation=operation) == 1, operation
