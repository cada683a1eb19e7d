"""A browser-like test client that completes a whole sign-in in one request to ``auth.login_path``,
for any provider on loopback: the development OpenID provider or the X-shaped stand-in.

    with fw.testing.identity_provider() as idp:
        fw.testing.login_user(idp, "alice")
        with fw.testing.BrowserClient(app, idp) as client:
            client.get("/auth/login")          # provider, callback, session: all followed
            assert client.get("/me").status_code == 200
"""

from __future__ import annotations

from typing import Any, Protocol

import httpx2
from starlette.testclient import TestClient
from starlette.types import ASGIApp


class SignInProvider(Protocol):
    """A test provider: where it listens, and who it signs in without asking."""

    @property
    def origin(self) -> str: ...

    def login_user(self, who: str | None, /) -> None: ...


def login_user(provider: SignInProvider, who: str | None) -> None:
    """Preset the user the provider signs in (``None``: show the picker page again)."""
    provider.login_user(who)


class _Dispatch(httpx2.BaseTransport):
    """Requests to the provider's origin go over the network; everything else to the app."""

    def __init__(self, app: httpx2.BaseTransport, provider_origin: str) -> None:
        self.app = app
        self.network = httpx2.HTTPTransport()
        self.origin = provider_origin

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        origin = f"{request.url.scheme}://{request.url.netloc.decode('ascii')}"
        if origin == self.origin:
            return self.network.handle_request(request)
        return self.app.handle_request(request)

    def close(self) -> None:
        self.network.close()
        self.app.close()


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
        super().__init__(app, base_url=base_url, **kw)
        app_transport: httpx2.BaseTransport = getattr(self, "_transport")  # noqa: B009
        origin = provider if isinstance(provider, str) else provider.origin
        self._transport = _Dispatch(app_transport, origin)
        self.provider = None if isinstance(provider, str) else provider

    def login(
        self, sub: str | None = None, *, next: str | None = None, login_path: str = "/auth/login"
    ) -> httpx2.Response:
        """Sign in as ``sub`` (default: the preset user) and follow the flow to its landing page."""
        if sub is not None:
            if self.provider is None:
                raise TypeError(
                    "login(sub) needs a development provider; this client talks to another issuer"
                )
            self.provider.login_user(sub)
        params = {"next": next} if next is not None else None
        response: httpx2.Response = self.get(login_path, params=params, follow_redirects=True)
        return response

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
