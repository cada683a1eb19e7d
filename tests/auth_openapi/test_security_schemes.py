"""Authentication in the OpenAPI document: the scheme the configuration implies, applied to
exactly the operations ``auth.protection`` protects, checked against real requests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from auth_jwt.config_file import jwt_only_toml
from openapi_spec_validator import validate
from starlette.testclient import TestClient

import fw
from fw.errors import StartupError
from fw.testing import configured, identity_provider
from fw.testing.issuer import LocalIssuer

PROTECTION = """
[auth.protection]
include = ["/api/"]
exclude = ["/api/public/"]
"""


def make_app() -> fw.App:
    """Unbound routes on both sides of the protection line."""
    app = fw.App()

    async def ok(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"ok": True})

    app.route("GET /api/orders/{order_id}")(ok)
    app.route("POST /api/orders")(ok)
    app.route("GET /api/public/status")(ok)
    app.route("GET /health")(ok)
    app.route("/api/anything/{rest...}")(ok)
    return app


def jwt_toml(issuer: LocalIssuer, dpop: str = "off", *, dsn: str = "", revocation: str = "off") -> str:
    """``jwt_only`` on ``issuer``; ``dsn`` is where its ``auth.backend`` store is, when it opens one."""
    store = f'[middleware.rdb]\ndsn = "{dsn}"\n' if dsn else ""
    jwt = jwt_only_toml(
        issuer.url, revocation=revocation, include=None, auth=PROTECTION, jwt=f'dpop = "{dpop}"\n'
    )
    return store + jwt


def served(toml: str, env: dict[str, str] | None = None) -> Iterator[tuple[TestClient, dict[str, Any]]]:
    with configured(toml=toml, env=env or {}), TestClient(make_app()) as client:
        document = client.get("/openapi.json").json()
        validate(document)
        yield client, document


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def request_path(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x", path)


def protected(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, method) for path, method, op in operations(document) if "security" in op}


def anonymous_statuses(client: TestClient, document: dict[str, Any]) -> dict[tuple[str, str], int]:
    """What an anonymous request to each documented operation really gets."""
    return {
        (path, method): client.request(method.upper(), request_path(path), follow_redirects=False).status_code
        for path, method, _ in operations(document)
    }


def refused_anonymously(client: TestClient, document: dict[str, Any], refusal: int) -> set[tuple[str, str]]:
    """The operations an anonymous request is refused on (``refusal``); every other one answers 200."""
    statuses = anonymous_statuses(client, document)
    assert {status for status in statuses.values() if status != refusal} <= {200}, statuses
    return {operation for operation, status in statuses.items() if status == refusal}


EXPECTED = {
    ("/api/orders/{order_id}", "get"),
    ("/api/orders", "post"),
    *(("/api/anything/{rest}", m) for m in ("get", "post", "put", "patch", "delete")),
}


@pytest.fixture
def issuer() -> Iterator[LocalIssuer]:
    with LocalIssuer() as running:
        yield running


def test_jwt_only_declares_http_bearer_jwt_on_exactly_the_protected_operations(issuer: LocalIssuer) -> None:
    for client, document in served(jwt_toml(issuer)):
        schemes = document["components"]["securitySchemes"]
        assert set(schemes) == {"bearerAuth"}
        assert {k: schemes["bearerAuth"][k] for k in ("type", "scheme", "bearerFormat")} == {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
        }
        assert protected(document) == EXPECTED
        for path, method, operation in operations(document):
            if (path, method) in EXPECTED:
                assert operation["security"] == [{"bearerAuth": []}]
                assert "401" in operation["responses"]
            else:
                assert "401" not in operation["responses"]
        assert refused_anonymously(client, document, 401) == protected(document)


@pytest.mark.parametrize(
    ("dpop", "schemes", "requirement"),
    [
        ("required", {"dpopAuth"}, [{"dpopAuth": []}]),
        ("allowed", {"bearerAuth", "dpopAuth"}, [{"bearerAuth": []}, {"dpopAuth": []}]),
    ],
)
def test_jwt_only_with_dpop_declares_the_dpop_scheme(
    issuer: LocalIssuer,
    sqlite_dsn: str,
    dpop: str,
    schemes: set[str],
    requirement: list[dict[str, list[str]]],
) -> None:
    for client, document in served(jwt_toml(issuer, dpop, dsn=sqlite_dsn)):
        declared = document["components"]["securitySchemes"]
        assert set(declared) == schemes
        assert declared["dpopAuth"]["scheme"] == "DPoP"
        secured = [op["security"] for _, _, op in operations(document) if "security" in op]
        assert secured and all(security == requirement for security in secured)
        assert all("503" in op["responses"] for _, _, op in operations(document) if "security" in op)
        assert refused_anonymously(client, document, 401) == protected(document) == EXPECTED


@pytest.mark.parametrize(
    ("dpop", "revocation", "store"),
    [
        ("off", "off", False),
        ("allowed", "off", True),  # DPoP's replay record
        ("required", "off", True),
        ("off", "token", True),
    ],
)
def test_jwt_only_documents_a_503_exactly_where_a_store_answers(
    issuer: LocalIssuer, sqlite_dsn: str, tmp_path: Path, dpop: str, revocation: str, store: bool
) -> None:
    for _, document in served(jwt_toml(issuer, dpop, dsn=sqlite_dsn, revocation=revocation)):
        secured = [op["responses"] for _, _, op in operations(document) if "security" in op]
        assert secured and all(("503" in responses) is store for responses in secured), secured
    # The store behind the 503: pointed at a database never migrated, a configuration that
    # reads one refuses to start, and one that reads none starts.
    empty = jwt_toml(issuer, dpop, dsn=f"sqlite:///{tmp_path / 'empty.sqlite3'}", revocation=revocation)
    if store:
        with pytest.raises(StartupError, match="fw migrate"):
            next(served(empty))
    else:
        for client, _ in served(empty):
            assert client.get("/health").status_code == 200


@pytest.mark.parametrize(("unauthenticated", "refusal"), [("unauthorized", 401), ("redirect", 302)])
def test_a_browser_mode_declares_the_session_cookie(
    sqlite_dsn: str, unauthenticated: str, refusal: int
) -> None:
    with identity_provider() as idp:
        toml = f"""
[session]
enabled = true

[middleware.rdb]
dsn = "{sqlite_dsn}"

[auth]
enabled = true
mode = "oidc_only"
{PROTECTION}unauthenticated = "{unauthenticated}"

[auth.oidc]
allow_loopback_http = true
"""
        for client, document in served(toml, idp.env):
            assert document["components"]["securitySchemes"] == {
                "sessionCookie": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "fw_session",
                    "description": "The browser session started at /auth/login",
                }
            }
            assert protected(document) == EXPECTED
            statuses = anonymous_statuses(client, document)
            for path, method, operation in operations(document):
                if (path, method) in EXPECTED:
                    # the redirect to login is a 302 for GET and a 303 for other methods
                    expected = 303 if refusal == 302 and method != "get" else refusal
                    assert set(operation["responses"]) >= {str(expected), "503"}, (path, method)
                    assert statuses[(path, method)] == expected, (path, method)
                else:
                    assert statuses[(path, method)] == 200, (path, method)


def test_the_document_follows_the_running_configuration(issuer: LocalIssuer) -> None:
    for _, document in served(
        jwt_toml(issuer).replace('exclude = ["/api/public/"]', 'exclude = ["/api/orders"]')
    ):
        assert ("/api/orders", "post") not in protected(document)
        assert ("/api/public/status", "get") in protected(document)
    with configured(toml=""), TestClient(make_app()) as client:
        document = client.get("/openapi.json").json()
    assert "securitySchemes" not in document["components"]
    assert not protected(document)
    assert {path for path, _, _ in operations(document)} == {
        "/api/orders/{order_id}",
        "/api/orders",
        "/api/public/status",
        "/health",
        "/api/anything/{rest}",
    }


# Its configuration file written out whole, as in the test above; the mode and the environment differ.
def test_a_production_browser_mode_declares_the_session_cookie_under_its_host_prefixed_name(
    sqlite_dsn: str,
) -> None:
    toml = f"""
[session]
enabled = true

[middleware.rdb]
dsn = "{sqlite_dsn}"

[auth]
enabled = true
mode = "passkey_only"
{PROTECTION}
[auth.passkey]
rp_id = "shop.example.com"
rp_name = "Shop"
origins = ["https://shop.example.com"]

[auth.recovery]
policy = "administrator"

[auth.registration]
policy = "invite"
"""
    for _, document in served(toml, {"APP_ENV": "prod"}):
        assert document["components"]["securitySchemes"]["sessionCookie"]["name"] == "__Host-fw_session"
