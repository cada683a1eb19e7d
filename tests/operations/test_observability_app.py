"""Metrics and tracing in a real fw.App configured like an application: real requests, a scrape
of ``/metrics``, spans exported in memory and to an OTLP receiver on loopback.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from auth_jwt.config_file import jwt_only_toml
from starlette.testclient import TestClient

import fw
from fw.errors import StartupError
from fw.operations import events
from fw.operations.tracing import exporting_to
from fw.rdb.migrate import upgrade
from fw.testing import BrowserClient, configured, identity_provider
from fw.testing.issuer import LocalIssuer

from .observability_support import exported_text, samples, total, value
from .otlp_receiver import OtlpReceiver

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(autouse=True)
def _declared() -> Iterator[None]:
    yield
    events.reset()  # an App whose startup was refused never shut down


@pytest.fixture
def dsn(tmp_path: Path) -> str:
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    asyncio.run(upgrade(dsn))
    return dsn


def jwt_toml(issuer: LocalIssuer, dsn: str, observability: str) -> str:
    return (
        jwt_only_toml(issuer.url, revocation="both")
        + f'\n[middleware.rdb]\ndsn = "{dsn}"\n\n{observability}\n'
    )


def api_app() -> fw.App:
    app = fw.App()

    @app.route("GET /api/orders/{id}")
    async def order(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"order": request.path_params["id"]})

    @app.route("GET /public")
    async def public(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"public": True})

    return app


def tampered(token: str) -> str:
    head, payload, signature = token.split(".")
    flipped = ("A" if signature[5] != "A" else "B").join((signature[:5], signature[6:]))
    return f"{head}.{payload}.{flipped}"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_scrape_after_real_requests_counts_routes_rejections_store_calls_and_key_refreshes(
    dsn: str,
) -> None:
    with LocalIssuer() as issuer:
        good = issuer.mint("alice", scope="read")
        expired = issuer.mint("bob", lifetime=timedelta(seconds=-120))
        toml = jwt_toml(issuer, dsn, "[observability.metrics]\nenabled = true\n")
        with configured(toml=toml), TestClient(api_app()) as client:
            statuses = [
                client.get("/api/orders/1", headers=bearer(good)).status_code,
                client.get("/api/orders/2", headers=bearer(good)).status_code,
                client.get("/public").status_code,
                client.get("/no/such/page").status_code,
                client.get("/api/orders/3", headers=bearer(expired)).status_code,
                client.get("/api/orders/3", headers=bearer(tampered(good))).status_code,
                client.get("/api/orders/3").status_code,
                client.get("/healthz").status_code,
            ]
            scrape = client.get("/metrics")
    assert statuses == [200, 200, 200, 404, 401, 401, 401, 200]
    assert scrape.status_code == 200
    scraped = samples(scrape.text)
    requests = "fw_http_requests_total"
    assert value(scraped, requests, method="GET", route="/api/orders/{id}", status="200") == 2
    assert value(scraped, requests, method="GET", route="/public", status="200") == 1
    assert value(scraped, requests, method="GET", route="unmatched", status="404") == 1
    # A rejected request still names the route it was for: the router finds it ahead of the
    # authentication middleware.
    assert value(scraped, requests, method="GET", route="/api/orders/{id}", status="401") == 3
    assert total(scraped, requests) == 7  # the health probe is not traffic
    assert not [labels for (_, labels) in scraped if ("route", "/api/orders/1") in labels]
    decisions = "fw_auth_decisions_total"
    assert value(scraped, decisions, mode="jwt_only", outcome="rejected", reason="expired") == 1
    assert value(scraped, decisions, mode="jwt_only", outcome="rejected", reason="bad_signature") == 1
    assert total(scraped, decisions, mode="jwt_only", outcome="rejected") == 3
    assert total(scraped, decisions, mode="jwt_only", outcome="allowed") == 2
    assert total(scraped, decisions, mode="jwt_only", outcome="anonymous") == 2  # /public, the 404
    assert total(scraped, decisions) == 7
    store = "fw_store_operation_duration_seconds_count"
    assert value(scraped, store, backend="rdb", operation="revocations.lookup") >= 2
    assert value(scraped, "fw_jwks_refresh_total", outcome="ok") >= 1
    assert total(scraped, "fw_provider_requests_total", endpoint="discovery", outcome="ok") >= 1
    assert total(scraped, "fw_provider_requests_total", endpoint="jwks", outcome="ok") >= 1
    assert good not in scrape.text and expired not in scrape.text


@pytest.mark.parametrize(
    ("missing", "section", "extra"),
    [("prometheus_client", "metrics", "metrics"), ("opentelemetry.sdk.trace", "tracing", "otel")],
)
def test_metrics_or_tracing_turned_on_without_its_package_refuses_to_start_naming_the_pip_install(
    missing: str, section: str, extra: str, dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)
    with LocalIssuer() as issuer:
        toml = jwt_toml(issuer, dsn, f"[observability.{section}]\nenabled = true\n")
        with configured(toml=toml), pytest.raises(StartupError) as refused, TestClient(api_app()):
            pass
    assert f"pip install 'fw-web[{extra}]'" in str(refused.value)


def _spans(exporter: Any) -> list[Any]:
    return list(exporter.get_finished_spans())


def _ancestry(span: Any, spans: list[Any]) -> list[str]:
    by_id = {found.context.span_id: found for found in spans}
    names = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def test_a_bearer_request_is_a_server_span_with_the_verification_and_store_calls_beneath(dsn: str) -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    trace_id, parent_id = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
    with LocalIssuer() as issuer, exporting_to(InMemorySpanExporter()) as exporter:
        good = issuer.mint("alice", scope="read", token_id="jti-trace-4411")
        toml = jwt_toml(issuer, dsn, '[observability.tracing]\nenabled = true\nservice_name = "orders"\n')
        with configured(toml=toml), TestClient(api_app()) as client:
            answer = client.get(
                "/api/orders/9", headers={**bearer(good), "traceparent": f"00-{trace_id}-{parent_id}-01"}
            )
            client.get("/healthz")
        spans = _spans(exporter)  # the App's shutdown exported what was left
    assert answer.status_code == 200
    [server] = [span for span in spans if span.name == "GET /api/orders/{id}"]
    assert f"{server.context.trace_id:032x}" == trace_id
    assert f"{server.parent.span_id:016x}" == parent_id
    assert server.attributes["http.request.method"] == "GET"
    assert server.attributes["http.route"] == "/api/orders/{id}"
    assert server.attributes["http.response.status_code"] == 200
    assert server.attributes["fw.request_id"] == answer.headers["x-request-id"]
    assert server.resource.attributes["service.name"] == "orders"
    [verify] = [span for span in spans if span.name == events.BEARER_VERIFICATION]
    assert _ancestry(verify, spans) == ["GET /api/orders/{id}"]
    lookups = [span for span in spans if span.name == "store revocations.lookup"]
    assert lookups and all("GET /api/orders/{id}" in _ancestry(span, spans) for span in lookups)
    assert not [span for span in spans if "healthz" in span.name or "readyz" in span.name]
    text = exported_text(spans)
    assert good not in text and "jti-trace-4411" not in text


def _signed_in_spans(dsn: str) -> tuple[list[Any], dict[str, str]]:
    """A sign-in through the development provider, traced: the spans and the secrets it used."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    used: dict[str, str] = {}
    with identity_provider() as idp, exporting_to(InMemorySpanExporter()) as exporter:
        toml = f"""
[auth]
enabled = true
mode = "oidc_only"
protection.include = ["/private/"]

[auth.oidc]
issuer = "{idp.issuer}"
client_id = "{idp.client_id}"
allow_loopback_http = true

[session]
enabled = true
backend = "rdb"

[middleware.rdb]
dsn = "{dsn}"

[observability.tracing]
enabled = true
"""
        app = fw.App()

        @app.route("GET /private/page")
        async def page(request: fw.Request) -> fw.Response:
            user = fw.auth.user(request)
            return fw.JSONResponse({"account": user.account_id if user else None})

        with (
            configured(toml=toml, env={"AUTH_OIDC_CLIENT_SECRET": idp.client_secret}),
            BrowserClient(app, idp, base_url="http://localhost") as client,
        ):
            idp.login_user("alice")
            to_provider = client.get("/auth/login", follow_redirects=False)
            callback = client.get(to_provider.headers["location"], follow_redirects=False).headers["location"]
            query = parse_qs(urlsplit(callback).query)
            used["authorization code"] = query["code"][0]
            used["state"] = query["state"][0]
            for cookie in client.cookies.jar:
                used[f"cookie {cookie.name}"] = cookie.value or ""
            client.get(callback, follow_redirects=False)
            for cookie in client.cookies.jar:
                used[f"cookie {cookie.name}"] = cookie.value or ""
            assert client.get("/private/page").json()["account"]
        used["client secret"] = idp.client_secret
        spans = _spans(exporter)
    return spans, {what: secret for what, secret in used.items() if len(secret) >= 8}


def test_a_sign_in_through_the_development_provider_traces_provider_calls_and_the_session_read(
    dsn: str,
) -> None:
    from opentelemetry.trace import SpanKind

    spans, _ = _signed_in_spans(dsn)
    names = [span.name for span in spans]
    [callback] = [span for span in spans if span.name == "GET /auth/callback"]
    [token] = [span for span in spans if span.name == "POST token"]
    assert token.kind == SpanKind.CLIENT
    assert _ancestry(token, spans)[-1] == "GET /auth/callback"
    assert token.context.trace_id == callback.context.trace_id
    assert token.attributes["http.response.status_code"] == 200
    reads = [span for span in spans if span.name == events.SESSION_READ]
    assert reads, names
    assert any(_ancestry(read, spans)[-1] == "GET /private/page" for read in reads)
    assert any(span.name.startswith("store sessions.") for span in spans), names


def test_no_token_cookie_code_or_secret_of_a_sign_in_appears_in_any_exported_span(dsn: str) -> None:
    spans, secrets = _signed_in_spans(dsn)
    assert {"authorization code", "state", "client secret", "cookie fw_session"} <= set(secrets)
    text = exported_text(spans)
    assert {what for what, secret in secrets.items() if secret in text} == set()


def test_an_app_exports_its_spans_to_an_otlp_receiver_on_loopback(dsn: str) -> None:
    with LocalIssuer() as issuer, OtlpReceiver() as receiver:
        good = issuer.mint("alice")
        observability = f'[observability.tracing]\nenabled = true\nendpoint = "{receiver.endpoint}"\n'
        with configured(toml=jwt_toml(issuer, dsn, observability)), TestClient(api_app()) as client:
            assert client.get("/api/orders/5", headers=bearer(good)).status_code == 200
        received = {span.name: span for span in receiver.spans}
    assert "GET /api/orders/{id}" in received
    server = received["GET /api/orders/{id}"]
    assert server.attributes["http.route"] == "/api/orders/{id}"
    assert server.attributes["http.response.status_code"] == 200
    assert server.resource["service.name"]  # the project's name, service_name being empty
    lookups = [span for span in receiver.spans if span.name == "store revocations.lookup"]
    assert lookups and all(span.trace_id == server.trace_id for span in lookups)
