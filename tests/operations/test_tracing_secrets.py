"""Bearer requests through the jwt_only extension, traced and counted: the spans nest as DESIGN
10.4 says, and no token, cookie, code or secret the run used appears in any exported span
attribute, event, name or resource, nor in the metrics."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from auth_jwt.settings import auth_settings, jwt_settings, revocation
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from fw.auth.modes.jwt_only import JwtOnly
from fw.auth.stores.select import middleware_settings
from fw.core.middleware import Pipeline
from fw.operations.metrics import Metrics
from fw.operations.observer import RequestObserver
from fw.rdb.migrate import upgrade
from fw.testing.issuer import LocalIssuer

from .observability_support import exported_text, finished_spans, in_memory_tracing, samples, sinks, total

pytestmark = pytest.mark.timeout(120)


def _behind(extension: JwtOnly, routes: list[Route]) -> Any:
    """The routes behind the extension's middleware, as the App's request path composes them."""
    return Pipeline(app=Starlette(routes=routes), middleware=extension.middleware())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_bearer_requests_export_no_token_cookie_code_or_secret(tmp_path: Path) -> None:
    dsn = f"sqlite:///{tmp_path / 'fw.sqlite3'}"
    await upgrade(dsn)
    metrics = Metrics()
    tracing, exporter = in_memory_tracing()
    with LocalIssuer() as issuer, sinks(metrics=metrics, tracing=tracing):
        settings = auth_settings(jwt_settings(issuer.url, revocation=revocation("both")))
        extension = JwtOnly(settings, middleware_settings(dsn))
        await extension.startup()  # opens its store while the sinks listen: the store is instrumented
        try:

            async def me(request: Request) -> JSONResponse:
                request.scope["fw.route"] = "/api/me"
                return JSONResponse({"ok": True})

            app = RequestObserver(_behind(extension, [Route("/api/me", me)]), [metrics, tracing])
            good = issuer.mint("alice", scope="read", token_id="jti-secret-7b1c")
            expired = issuer.mint("bob", lifetime=timedelta(seconds=-120))
            secrets = {
                "the access token": good,
                "its signature": good.rsplit(".", 1)[1],
                "an expired token": expired,
                "a garbage token": "garbage-token-5f2e9d",
                "a session cookie": "cookie-secret-a81f",
                "a query code": "code-secret-93d0",
                "a query state": "state-secret-4c17",
                "a client secret": "client-secret-0e6b",
                "a token id": "jti-secret-7b1c",
            }
            transport = httpx2.ASGITransport(app=app)
            async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
                answers = [
                    await client.get(
                        "/api/me?code=code-secret-93d0&state=state-secret-4c17",
                        headers={**bearer(good), "Cookie": "fw_session=cookie-secret-a81f"},
                    ),
                    await client.get("/api/me", headers=bearer(expired)),
                    await client.get("/api/me", headers=bearer("garbage-token-5f2e9d")),
                    await client.get("/api/me", auth=("client", "client-secret-0e6b")),
                    await client.get("/nowhere?code=code-secret-93d0"),
                ]
        finally:
            await extension.shutdown()
        spans = finished_spans(tracing, exporter)
        scrape = metrics.render().decode()
    tracing.shutdown()
    assert [answer.status_code for answer in answers] == [200, 401, 401, 401, 404]
    servers = [span for span in spans if span.parent is None]
    # A request the bearer middleware rejects is named by its route once the router has matched
    # it ahead of the middleware (fw's core records fw.route); here only the handler records it.
    assert len(servers) == 5
    assert servers[0].name == "GET /api/me"
    assert servers[4].name == "GET"
    lookups = [span for span in spans if span.name == "store revocations.lookup"]
    assert lookups, "the revocation check of the valid token reads the store"
    by_id = {span.context.span_id: span for span in spans}
    chain, span = [], lookups[0]
    while span.parent is not None:
        span = by_id[span.parent.span_id]
        chain.append(span.name)
    assert chain[-1] == "GET /api/me"  # the store call nests under the request that made it
    assert span is servers[0]
    text = exported_text(spans)
    leaked = {what: secret for what, secret in secrets.items() if secret in text or secret in scrape}
    assert leaked == {}
    scraped = samples(scrape)
    assert total(scraped, "fw_http_requests_total", route="/api/me", status="200") == 1
    assert total(scraped, "fw_http_requests_total", status="401") == 3
    assert total(scraped, "fw_http_requests_total", route="unmatched", status="404") == 1
    store = "fw_store_operation_duration_seconds_count"
    assert total(scraped, store, backend="rdb", operation="revocations.lookup") >= 1
