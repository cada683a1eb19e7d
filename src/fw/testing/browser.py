"""A browser-like test client that completes a whole sign-in in one request to ``auth.login_path``,
for any provider on loopback: the development OpenID provider or the X-shaped stand-in.

    with fw.testing.identity_provider() as idp:
        fw.testing.login_user(idp, "alice")
        with fw.testing.BrowserClient(app, idp) as client:
            client.get("/auth/login")          # provider, callback, session: all followed
            assert client.get("/me").status_code == 200
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import httpx2
from starlette.concurrency import run_in_threadpool
from starlette.testclient import TestClient
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fw.testing.signin import check_signed_in


class SignInProvider(Protocol):
    """A test provider: where it listens, and who it signs in without asking."""

    @property
    def origin(self) -> str: ...

    def login_user(self, who: str | None, /) -> None: ...


def login_user(provider: SignInProvider, who: str | None) -> None:
    """Preset the user the provider signs in (``None``: show the picker page again)."""
    provider.login_user(who)


_DEFAULT_PORTS = {"http": 80, "https": 443}


class _ProviderRoute:
    """The app under test, except that a request addressed to the provider's origin goes to the
    provider over the network, so the client's own redirect following and cookie jar carry a
    whole sign-in across both origins.

    It sits in front of the app (the test client sends every request to one ASGI app) and answers
    a provider's request with the provider's response as it came off the wire: status, headers
    and body bytes, nothing decoded.
    """

    def __init__(self, app: ASGIApp, provider_origin: str) -> None:
        self.app = app
        url = httpx2.URL(provider_origin)
        self.origin = provider_origin.rstrip("/")
        self.scheme, self.host = url.scheme, url.host
        self.port = url.port or _DEFAULT_PORTS.get(url.scheme)
        self.network = httpx2.HTTPTransport()
        #: The client's timeouts, which a request to the provider keeps (it crosses the app's side).
        self.timeout: Callable[[], httpx2.Timeout] = lambda: httpx2.Timeout(5.0)

    def _for_provider(self, scope: Scope) -> bool:
        server = scope.get("server")
        return (
            scope["type"] == "http"
            and scope["scheme"] == self.scheme
            and server is not None
            and server[0] == self.host
            and server[1] == self.port
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._for_provider(scope):
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message: Message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        query = scope["query_string"]
        target = (
            self.origin
            + scope["raw_path"].decode("latin-1")
            + ("?" + query.decode("latin-1") if query else "")
        )
        request = httpx2.Request(
            scope["method"],
            target,
            headers=scope["headers"],
            content=body or None,
            extensions={"timeout": self.timeout().as_dict()},
        )
        status, headers, content = await run_in_threadpool(self._exchange, request)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    def _exchange(self, request: httpx2.Request) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        response = self.network.handle_request(request)
        try:
            content = b"".join(response.iter_raw())
        finally:
            response.close()
        return response.status_code, [(k.lower(), v) for k, v in response.headers.raw], content

    def close(self) -> None:
        self.network.close()


class BrowserClient(TestClient):
    """A Starlette ``TestClient`` on a loopback origin that follows redirects through the provider.

    ``provider`` is a test provider (:func:`fw.testing.identity_provider`,
    :func:`fw.testing.oauth_provider`) or the origin of any provider on loopback.
    """

    __test__ = False

    def __init__(
        self,
        app: ASGIApp,
        provider: SignInProvider | str,
        *,
        base_url: str = "http://localhost:8000",
        **kw: Any,
    ) -> None:
        origin = provider if isinstance(provider, str) else provider.origin
        self.route = _ProviderRoute(app, origin)
        super().__init__(self.route, base_url=base_url, **kw)
        self.route.timeout = lambda: self.timeout
        self.app = app  # what a test reaches through ``client.app``, and what the lifespan runs
        self.provider = None if isinstance(provider, str) else provider

    def close(self) -> None:
        super().close()
        self.route.close()

    def __exit__(self, *args: Any) -> None:
        # TestClient's own exit stops the app but never calls close(): without this the
        # connections to the provider outlive the test (an unclosed-socket warning).
        super().__exit__(*args)
        self.route.close()

    def login(
        self,
        sub: str | None = None,
        *,
        next: str | None = None,
        login_path: str = "/auth/login",
        allow_failure: bool = False,
    ) -> httpx2.Response:
        """Sign in as ``sub`` (default: the preset user) and follow the flow to its landing page.

        A sign-in that ends in an error status or stops at the provider raises
        :class:`fw.testing.SignInFailed` with the status, URL and answer, so the test stops
        here rather than at a later, unrelated assert. ``allow_failure=True`` returns the last
        response instead, for a test about the failure itself.
        """
        if sub is not None:
            if self.provider is None:
                raise TypeError(
                    "login(sub) needs a development provider; this client talks to another issuer"
                )
            self.provider.login_user(sub)
        params = {"next": next} if next is not None else None
        response: httpx2.Response = self.get(login_path, params=params, follow_redirects=True)
        if allow_failure:
            return response
        same_origin = self.route.origin == str(self.base_url).rstrip("/")
        return check_signed_in(response, None if same_origin else self.route.origin)

    def logout(
        self, *, logout_path: str = "/auth/logout", data: dict[str, str] | None = None
    ) -> httpx2.Response:
        response: httpx2.Response = self.post(
            logout_path,
            data=data or {},
            headers={"Origin": str(self.base_url).rstrip("/")},
            follow_redirects=False,
        )
        return response
