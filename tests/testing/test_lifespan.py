"""``fw.testing.lifespan``: an async test starts and stops the App around ``httpx2.ASGITransport``
requests, in its own event loop, and a refusal to start surfaces as the App's own error."""

from __future__ import annotations

import httpx2
import pytest

import fw
import fw.testing


def create_app(events: list[str]) -> fw.App:
    app = fw.App()

    @app.on_startup
    async def started() -> None:
        events.append("startup")

    @app.on_shutdown
    async def stopped() -> None:
        events.append("shutdown")

    @app.route("GET /")
    async def home(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"events": events})

    return app


def _client(app: fw.App) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://localhost:8000")


async def test_the_app_starts_before_the_block_and_stops_after_it() -> None:
    events: list[str] = []
    app = create_app(events)
    with fw.testing.configured():
        async with fw.testing.lifespan(app), _client(app) as client:
            assert (await client.get("/")).json() == {"events": ["startup"]}
    assert events == ["startup", "shutdown"]


async def test_the_app_stops_even_when_the_block_raises() -> None:
    events: list[str] = []
    app = create_app(events)
    with fw.testing.configured(), pytest.raises(KeyError):
        async with fw.testing.lifespan(app):
            raise KeyError("a failing test")
    assert events == ["startup", "shutdown"]


async def test_an_app_refusing_to_start_raises_its_startup_error_at_the_async_with() -> None:
    events: list[str] = []
    refused = '[auth]\nenabled = true\nmode = "oidc_only"\n'  # no issuer: fw refuses to start
    with fw.testing.configured(toml=refused), pytest.raises(fw.StartupError, match=r"auth\.oidc\.issuer"):
        async with fw.testing.lifespan(create_app(events)):
            pytest.fail("the block must not run when the App refused to start")
    assert events == []


async def test_a_failing_startup_hook_raises_its_own_error() -> None:
    app = create_app([])

    @app.on_startup
    async def broken() -> None:
        raise LookupError("the price list is missing")

    with fw.testing.configured(), pytest.raises(LookupError, match="price list"):
        async with fw.testing.lifespan(app):
            pytest.fail("the block must not run when a startup hook failed")
