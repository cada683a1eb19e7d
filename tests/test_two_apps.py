"""Two Apps in one process, each with its own configuration: the configuration, the extensions,
the stores and the account seams hang off the App, and the module-level helpers (``fw.config``,
``fw.auth.bearer``, ``fw.auth.user``) find the App through the request. Written as an
application team writes its tests after docs/testing.md."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from starlette.testclient import TestClient

import fw
import fw.testing
from fw.auth.settings import AuthSettings
from fw.rdb.migrate import upgrade
from fw.settings import ServerSettings

pytestmark = pytest.mark.timeout(120)

# Each configuration is written out whole, as a project's file is; other tests' files share its shape only.
API = """
[server]
port = {port}

[auth]
enabled = true
mode = "jwt_only"
protection.include = ["/me"]

[auth.jwt]
issuer = "${{AUTH_JWT_ISSUER}}"
audience = ["{audience}"]
algorithms = ["RS256"]
admission = "authenticated"
max_token_lifetime = "1h"
allow_loopback_http = true
revocation.mode = "off"
"""

# Written out whole like API above; test_sign_in_failures.py's CONFIG shares these lines on purpose.
BROWSER = """
[server]
port = 8202

[session]
enabled = true

[auth]
enabled = true
mode = "oidc_only"

[auth.oidc]
issuer = "${AUTH_OIDC_ISSUER}"
client_id = "${AUTH_OIDC_CLIENT_ID}"
client_secret = "${AUTH_OIDC_CLIENT_SECRET}"
allow_loopback_http = true
scopes = ["profile", "email"]
"""


def create_app() -> fw.App:
    """One application, served twice: what each App answers comes from its own configuration."""
    app = fw.App()

    @app.route("GET /settings")
    async def settings(request: fw.Request) -> fw.Response:
        auth = fw.config(AuthSettings, request)
        return fw.JSONResponse(
            {
                "port": fw.config(ServerSettings, request).port,
                "mode": auth.mode if auth.enabled else "off",
                "audience": auth.jwt.audience,
            }
        )

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        if fw.config(AuthSettings, request).mode == "jwt_only":
            caller = fw.auth.bearer(request)
            return fw.JSONResponse({"account_id": caller.account_id if caller else None})
        user = fw.auth.user(request)
        return fw.JSONResponse({"account_id": user.account_id if user else None})

    return app


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def issuers() -> Iterator[tuple[fw.testing.LocalIssuer, fw.testing.LocalIssuer]]:
    with fw.testing.LocalIssuer() as first, fw.testing.LocalIssuer() as second:
        yield first, second


def test_two_jwt_only_apps_with_their_own_issuer_and_audience_each_accept_only_their_tokens(
    issuers: tuple[fw.testing.LocalIssuer, fw.testing.LocalIssuer],
) -> None:
    orders_issuer, billing_issuer = issuers
    with fw.testing.configured(
        toml=API.format(port=8201, audience="orders"), env={"AUTH_JWT_ISSUER": orders_issuer.url}
    ):
        orders = TestClient(create_app()).__enter__()
    with fw.testing.configured(
        toml=API.format(port=8202, audience="billing"), env={"AUTH_JWT_ISSUER": billing_issuer.url}
    ):
        billing = TestClient(create_app()).__enter__()
    try:
        for_orders = orders_issuer.mint("ada", audience="orders")
        for_billing = billing_issuer.mint("bob", audience="billing")
        # Interleaved, and with neither configuration in force any more.
        for _ in range(2):
            assert orders.get("/me", headers=bearer(for_orders)).json() == {"account_id": "ada"}
            assert billing.get("/me", headers=bearer(for_billing)).json() == {"account_id": "bob"}
            assert orders.get("/me", headers=bearer(for_billing)).status_code == 401
            assert billing.get("/me", headers=bearer(for_orders)).status_code == 401
        assert orders.get("/settings").json() == {"port": 8201, "mode": "jwt_only", "audience": ["orders"]}
        assert billing.get("/settings").json() == {"port": 8202, "mode": "jwt_only", "audience": ["billing"]}
    finally:
        orders.__exit__(None, None, None)
        billing.__exit__(None, None, None)


def test_a_jwt_only_app_and_an_oidc_only_app_serve_side_by_side(
    issuers: tuple[fw.testing.LocalIssuer, fw.testing.LocalIssuer], tmp_path: Path
) -> None:
    issuer, _ = issuers
    dsn = f"sqlite:///{tmp_path / 'browser.sqlite3'}"
    asyncio.run(upgrade(dsn))
    with fw.testing.identity_provider() as idp:
        with fw.testing.configured(
            toml=API.format(port=8201, audience="orders"), env={"AUTH_JWT_ISSUER": issuer.url}
        ):
            api = TestClient(create_app()).__enter__()
        try:
            with (
                fw.testing.configured(toml=BROWSER, env={**idp.env, "MIDDLEWARE_RDB_DSN": dsn}),
                fw.testing.BrowserClient(create_app(), idp) as browser,
            ):
                token = issuer.mint("ada", audience="orders")
                assert api.get("/me", headers=bearer(token)).json() == {"account_id": "ada"}
                assert browser.get("/me").json() == {"account_id": None}
                browser.login("alice")
                signed_in = browser.get("/me").json()["account_id"]
                assert signed_in
                assert api.get("/me").status_code == 401  # no token: the API's own mode decides
                assert api.get("/me", headers=bearer(token)).json() == {"account_id": "ada"}
                assert browser.get("/me", headers=bearer(token)).json() == {"account_id": signed_in}
                assert api.get("/settings").json()["mode"] == "jwt_only"
                assert browser.get("/settings").json()["mode"] == "oidc_only"
        finally:
            api.__exit__(None, None, None)


def server(port: int) -> str:
    return f"[server]\nport = {port}\n"


def test_nested_configured_blocks_give_each_app_its_own_block_settings() -> None:
    with fw.testing.configured(toml=server(8301)), TestClient(create_app()) as outer:
        assert outer.get("/settings").json()["port"] == 8301
        with fw.testing.configured(toml=server(8302)), TestClient(create_app()) as inner:
            assert inner.get("/settings").json()["port"] == 8302
            assert outer.get("/settings").json()["port"] == 8301  # not the inner block's
            assert fw.config(ServerSettings).port == 8302  # outside a handler: the block in force
        assert outer.get("/settings").json()["port"] == 8301


def test_a_client_used_after_its_block_ended_keeps_its_apps_configuration() -> None:
    with fw.testing.configured(toml=server(8401)):
        client = TestClient(create_app()).__enter__()
    try:
        assert fw.config(ServerSettings).port == 8000  # nothing in force here: the defaults
        assert client.get("/settings").json()["port"] == 8401
    finally:
        client.__exit__(None, None, None)


def test_a_handler_reading_config_without_the_request_reads_its_running_apps_configuration() -> None:
    app = fw.App()

    @app.route("GET /port")
    async def port(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"port": fw.config(ServerSettings).port})

    with fw.testing.configured(toml=server(8501)):
        client = TestClient(app).__enter__()
    try:
        assert client.get("/port").json() == {"port": 8501}
    finally:
        client.__exit__(None, None, None)


async def test_an_async_client_used_after_its_block_ended_keeps_its_apps_configuration() -> None:
    app = create_app()
    with fw.testing.configured(toml=server(8601)):
        async with fw.testing.lifespan(app):
            pass
    transport = httpx2.ASGITransport(app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/settings")).json()["port"] == 8601


#: A module-level App, as an application module holds one (``from shop.app import app``).
app = create_app()

FIRST, SECOND = server(8701), server(8702)


@pytest.mark.parametrize(
    "order", [(FIRST, SECOND), (SECOND, FIRST)], ids=["first-then-second", "second-then-first"]
)
def test_a_module_level_app_started_again_under_another_configuration_refuses_naming_the_key(
    order: tuple[str, str],
) -> None:
    module_app = create_app()  # a fresh "module" per order, so each order starts from scratch
    started, then = order
    expected_port = 8701 if started is FIRST else 8702
    with fw.testing.configured(toml=started), TestClient(module_app) as client:
        assert client.get("/settings").json()["port"] == expected_port
    with (
        fw.testing.configured(toml=then),
        pytest.raises(fw.StartupError, match=r"already started under another configuration.*server\.port"),
        TestClient(module_app),
    ):
        pytest.fail("the App must not start under a second configuration")
    # It never serves the old configuration under the new block; under its own it starts again.
    with fw.testing.configured(toml=started), TestClient(module_app) as client:
        assert client.get("/settings").json()["port"] == expected_port


def test_a_module_level_app_started_again_under_the_same_settings_starts() -> None:
    for _ in range(2):
        with fw.testing.configured(toml=server(8801)), TestClient(app) as client:
            assert client.get("/settings").json()["port"] == 8801


def test_the_refusal_names_keys_and_sources_but_never_a_value() -> None:
    refused = create_app()
    secret = "s3cret-value-never-shown"
    with fw.testing.configured(toml=""), TestClient(refused):
        pass
    with (
        fw.testing.configured(env={"SESSION_KEYRING_SECRET": secret}),
        pytest.raises(fw.StartupError) as caught,
        TestClient(refused),
    ):
        pass
    message = str(caught.value)
    assert "session.keyring.secret (default, now env:SESSION_KEYRING_SECRET)" in message
    assert secret not in message
    assert "create_app()" in message
