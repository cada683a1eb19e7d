"""The target URI a proof's ``htu`` is compared with: the path as the client sent it (RFC 9449 4.3).

The requests go through uvicorn on a loopback port (both of its HTTP parsers), so the raw path
is the one a real server hands the application, percent-encodings and all.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
import uvicorn
from auth_jwt.conftest import jwt_only
from auth_jwt.settings import auth_settings, jwt_settings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from fw.auth.modes.jwt_only.dpop import target_uri
from fw.core.middleware import Pipeline
from fw.testing.issuer import LocalIssuer

from .support import DpopClient


async def _echo(request: Request) -> JSONResponse:
    return JSONResponse({"raw_path": request.scope["raw_path"].decode("ascii")})


@contextlib.asynccontextmanager
async def listening(
    issuer: LocalIssuer, store: str, http: str, *, root_path: str = ""
) -> AsyncIterator[tuple[httpx2.AsyncClient, str]]:
    """``jwt_only`` with DPoP required in front of an echo of the raw path, served by uvicorn
    (under ``root_path``, as ``--root-path`` does behind a proxy); a client of it and its origin."""
    extension = jwt_only(auth_settings(jwt_settings(issuer.url, dpop="required")), store)
    await extension.startup()
    app = Starlette(
        routes=[Route("/api/{rest:path}", _echo)],
        middleware=[Middleware(Pipeline, middleware=extension.middleware())],
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, http=http, root_path=root_path, lifespan="off", log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(1000):
            if server.started or serving.done():
                break
            await asyncio.sleep(0.01)
        assert server.started, "uvicorn did not start"
        origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
        async with httpx2.AsyncClient(base_url=origin, timeout=10) as client:
            yield client, origin
    finally:
        server.should_exit = True
        await serving
        sock.close()
        await extension.shutdown()


class Caller:
    """A DPoP client with its bound token: one fresh proof for each request."""

    def __init__(self, issuer: LocalIssuer) -> None:
        self.client = DpopClient()
        self.token = issuer.mint(claims={"cnf": {"jkt": self.client.jkt}})

    def headers(self, htu: str, **extra: str) -> dict[str, str]:
        proof = self.client.proof("GET", htu, self.token)
        return {"Authorization": f"DPoP {self.token}", "DPoP": proof, **extra}


HTTP_PARSERS = pytest.mark.parametrize("http", ["h11", "httptools"])

#: (the path requested, the path the proof's htu names)
MATCHING = {
    "non-ASCII, percent-encoded": ("/api/items/caf%C3%A9", "/api/items/caf%C3%A9"),
    "hex digits of either case": ("/api/items/caf%c3%a9", "/api/items/caf%C3%A9"),
    "a space": ("/api/files/a%20b", "/api/files/a%20b"),
    "an encoded slash": ("/api/files/a%2Fb", "/api/files/a%2fb"),
    "an encoded unreserved letter in the request": ("/api/m%65", "/api/me"),
    "an encoded unreserved letter in the proof": ("/api/me", "/api/m%65"),
    "ASCII a client left unencoded": ("/api/a|b", "/api/a|b"),
    "ASCII the request encodes and the proof does not": ("/api/a%7Cb", "/api/a|b"),
}

DIFFERENT = {
    "the decoded non-ASCII form": ("/api/items/caf%C3%A9", "/api/items/café"),
    "the decoded space": ("/api/files/a%20b", "/api/files/a b"),
    "a slash where the request has %2F": ("/api/files/a%2Fb", "/api/files/a/b"),
    "%2F where the request has a slash": ("/api/files/a/b", "/api/files/a%2Fb"),
}


@HTTP_PARSERS
@pytest.mark.parametrize("case", list(MATCHING))
async def test_a_proof_naming_the_requested_uri_is_accepted_however_it_is_encoded(
    issuer: LocalIssuer, sqlite_store: str, http: str, case: str
) -> None:
    requested, named = MATCHING[case]
    caller = Caller(issuer)
    async with listening(issuer, sqlite_store, http) as (client, origin):
        response = await client.get(requested, headers=caller.headers(f"{origin}{named}"))
    assert response.status_code == 200, (case, response.headers.get("www-authenticate"))
    assert response.json()["raw_path"] == requested  # the server saw the path as it was sent


# The mirror of the test above (accepted there, refused here), kept apart so each outcome has its name.
@HTTP_PARSERS
@pytest.mark.parametrize("case", list(DIFFERENT))
async def test_a_proof_naming_another_uri_is_refused(
    issuer: LocalIssuer, sqlite_store: str, http: str, case: str
) -> None:
    requested, named = DIFFERENT[case]
    caller = Caller(issuer)
    async with listening(issuer, sqlite_store, http) as (client, origin):
        response = await client.get(requested, headers=caller.headers(f"{origin}{named}"))
    assert response.status_code == 401, case
    assert response.headers["www-authenticate"].startswith('DPoP error="invalid_dpop_proof"'), case


@HTTP_PARSERS
async def test_the_port_is_compared_unless_it_is_the_schemes_default(
    issuer: LocalIssuer, sqlite_store: str, http: str
) -> None:
    caller = Caller(issuer)
    async with listening(issuer, sqlite_store, http) as (client, origin):
        port = int(origin.rsplit(":", 1)[1])
        explicit = await client.get("/api/me", headers=caller.headers(f"http://127.0.0.1:{port}/api/me"))
        without = await client.get("/api/me", headers=caller.headers("http://127.0.0.1/api/me"))
        another = await client.get("/api/me", headers=caller.headers(f"http://127.0.0.1:{port + 1}/api/me"))
        default_host = {"Host": "api.example.test"}  # a request to the default port names none
        default = await client.get(
            "/api/me", headers=caller.headers("http://API.Example.test:80/api/me", **default_host)
        )
        off_default = await client.get(
            "/api/me", headers=caller.headers("http://api.example.test:8080/api/me", **default_host)
        )
    assert explicit.status_code == 200
    assert default.status_code == 200
    assert without.status_code == another.status_code == off_default.status_code == 401


async def test_under_a_root_path_the_target_uri_is_the_public_one_with_its_prefix(
    issuer: LocalIssuer, sqlite_store: str
) -> None:
    caller = Caller(issuer)
    async with listening(issuer, sqlite_store, "h11", root_path="/shop") as (client, origin):
        public = await client.get("/api/me", headers=caller.headers(f"{origin}/shop/api/me"))
        inner = await client.get("/api/me", headers=caller.headers(f"{origin}/api/me"))
    assert public.status_code == 200
    assert public.json()["raw_path"] == "/shop/api/me"
    assert inner.status_code == 401


def scope(**entries: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "http",
        "scheme": "http",
        "method": "GET",
        "path": "/api/items/café",
        "raw_path": b"/api/items/caf%C3%A9",
        "root_path": "",
        "query_string": b"page=2",
        "headers": [(b"host", b"testserver")],
        "server": ("testserver", 80),
    }
    base.update(entries)
    return {key: value for key, value in base.items() if value is not None}


def test_the_target_uri_is_built_from_the_raw_path_without_the_query() -> None:
    assert target_uri(scope()) == "http://testserver/api/items/caf%C3%A9"


def test_without_a_raw_path_the_decoded_path_is_encoded_again() -> None:
    assert target_uri(scope(raw_path=None)) == "http://testserver/api/items/caf%C3%A9"
    assert target_uri(scope(raw_path=None, path="/files/a b/100%")) == "http://testserver/files/a%20b/100%25"


def test_a_websocket_handshake_targets_the_http_uri_it_started_as() -> None:
    assert target_uri(scope(type="websocket", scheme="wss")) == "https://testserver/api/items/caf%C3%A9"
