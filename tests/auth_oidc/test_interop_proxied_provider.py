"""The certified provider (npm ``oidc-provider``) behind a proxy, as operators deploy it.

The provider names its endpoints after each request's ``Host`` and scheme. Behind a proxy that
passes them on, its discovery document names the proxy's own address and a sign-in works through
it. Behind a proxy that passes its public host name but not the scheme (the issue's TLS proxy
without ``X-Forwarded-Proto``), the same provider names ``http://idp.example.com/...`` for every
endpoint: fw refuses the document, the login answers 503 and nothing goes to those URLs.

Both the proxy and the provider listen on loopback; ``idp.example.com`` is only the ``Host``
header the proxy sends, and the data the provider writes back.
"""

from __future__ import annotations

import logging
import re
import secrets
import socket
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from interop.conftest import RunningProvider, relying_party, start_provider
from local_servers import free_port
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from auth_oidc.test_interop_oidc_provider import fw_rp_browser, sign_in
from fw.background import BackgroundServer

__all__ = ["start_provider"]  # the harness fixture, used below

ORIGIN = "http://localhost:8000"
#: Headers that describe one hop, not the message; the proxy sets or drops them itself.
_HOP = frozenset(
    {"host", "connection", "content-length", "transfer-encoding", "content-encoding", "keep-alive"}
)


class Proxy:
    """A reverse proxy on loopback in front of ``upstream``; ``public_host`` is the ``Host`` it
    sends upstream (``None``: the one the client sent, as a correct proxy does)."""

    def __init__(self, upstream_port: int, public_host: str | None) -> None:
        self.upstream = f"http://127.0.0.1:{upstream_port}"
        self.public_host = public_host
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        app = Starlette(routes=[Route("/{path:path}", self._forward, methods=["GET", "POST"])])
        self._server = BackgroundServer(
            app, self._sock, what="the proxy", name="fw-test-proxy", access_log=False
        )

    async def _forward(self, request: Request) -> Response:
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP]
        headers.append(("host", self.public_host or request.headers["host"]))
        target = f"{self.upstream}{request.url.path}"
        if request.url.query:
            target += f"?{request.url.query}"
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            answer = await http.request(request.method, target, headers=headers, content=await request.body())
        response = Response(answer.content, status_code=answer.status_code)
        for name, value in answer.headers.multi_items():
            if name.lower() not in _HOP:
                response.headers.append(name, value)
        return response

    def __enter__(self) -> Proxy:
        self._server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.stop()


@pytest.fixture
def proxied(start_provider: Callable[[dict[str, Any]], RunningProvider]) -> Iterator[Callable[..., Any]]:
    """``proxied(public_host)``: the certified provider behind a :class:`Proxy`; the issuer is the
    proxy's address. Yields (provider, client secret)."""
    proxies: list[Proxy] = []

    def start(public_host: str | None) -> tuple[RunningProvider, str]:
        port = free_port()
        proxy = Proxy(port, public_host).__enter__()
        proxies.append(proxy)
        secret = secrets.token_urlsafe(16)
        client = relying_party(secret, ORIGIN)
        config = {"port": port, "issuer": proxy.url, "clients": [client], "accounts": {"alice": {}}}
        return start_provider(config), secret

    yield start
    for proxy in proxies:
        proxy.__exit__()


def test_behind_a_proxy_passing_host_and_scheme_the_sign_in_works_through_it(
    proxied: Callable[..., Any], sqlite_dsn: str
) -> None:
    provider, secret = proxied(None)
    document = httpx2.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=10).json()
    assert document["token_endpoint"].startswith(provider.issuer)  # the proxy's own address
    with fw_rp_browser(provider.issuer, sqlite_dsn, secret, post_login_path="/me") as (client, _):
        landed = sign_in(client)
        assert landed.status_code == 200, landed.text
        assert landed.json()["key"] == "alice"


def test_behind_a_proxy_that_loses_the_scheme_no_login_is_sent_to_its_plain_http_endpoints(
    proxied: Callable[..., Any], sqlite_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    provider, secret = proxied("idp.example.com")
    document = httpx2.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=10).json()
    assert document["issuer"] == provider.issuer
    assert document["authorization_endpoint"] == "http://idp.example.com/auth"
    with (
        fw_rp_browser(provider.issuer, sqlite_dsn, secret) as (client, _),
        caplog.at_level(logging.ERROR, "fw.auth"),
    ):
        response = client.get("/auth/login", follow_redirects=False)
    assert response.status_code == 503 and "location" not in response.headers
    named = set(re.findall(r"(\w+) 'http://idp\.example\.com/", caplog.text))
    endpoints = {
        member for member, value in document.items() if str(value).startswith("http://idp.example.com/")
    }
    assert {"authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint"} <= endpoints
    assert named == endpoints  # every endpoint the provider names, each with its URL
