"""Serving a development provider on a loopback socket, in a background thread.

A development provider checks no password, so it refuses any address a second machine could
reach and any ``APP_ENV`` other than ``dev``: a misconfigured deployment fails loudly instead of
letting anyone in. Once running it also refuses requests addressed to a name that is not
loopback (:class:`LoopbackOnly`). The OpenID provider and the X-shaped stand-in share all of it.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from fw.auth.tokens.urls import is_loopback_host
from fw.background import BackgroundServer
from fw.devidp.pages import page


class NotLoopbackError(RuntimeError):
    """A development provider was asked to run where it could be reached by others."""


def is_loopback_uri(uri: str) -> bool:
    """A local URI a development provider accepts without registration."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and is_loopback_host(parts.hostname or "")


def redirect_allowed(uri: str, registered: tuple[str, ...]) -> bool:
    """A registered redirect URI, or (when the client registered none) any loopback one."""
    if not uri:
        return False
    if uri in registered:
        return True
    return not registered and is_loopback_uri(uri)


def _check_host(host: str, what: str) -> None:
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise NotLoopbackError(f"{what} only binds to loopback addresses, not {host!r}")


def _check_env(what: str) -> None:
    env = os.environ.get("APP_ENV", "") or "dev"
    if env != "dev":
        raise NotLoopbackError(f"{what} runs only with APP_ENV=dev (APP_ENV is {env!r})")


class LoopbackOnly:
    """Answer only requests addressed to a loopback name.

    Binding to loopback keeps other machines out, but a web page can still point a name it
    controls at 127.0.0.1 (DNS rebinding) and drive a password-less provider from the
    developer's own browser; its requests carry that foreign name in ``Host``.
    """

    def __init__(self, app: ASGIApp, footer: str) -> None:
        self.app = app
        self.footer = footer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = Headers(scope=scope).get("host", "")
            if not is_loopback_uri(f"http://{host}/"):
                body = "<p>This provider answers loopback names only.</p>"
                refusal = page("Not a loopback host", body, self.footer, 421)
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class LoopbackServer:
    """A socket bound on loopback (so ``origin`` is known at once) and the server for it.

    ``what`` names the provider in refusals and errors; a subclass builds its application from
    ``origin`` and hands it to :meth:`serve`.
    """

    def __init__(self, *, host: str, port: int, what: str, thread_name: str) -> None:
        _check_env(what)
        _check_host(host, what)
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host.strip("[]"), port))
            self._socket.listen(128)
        except OSError:
            self._socket.close()
            raise
        bound_port = self._socket.getsockname()[1]
        shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
        #: ``http://host:port`` of the running provider.
        self.origin = f"http://{shown}:{bound_port}"
        self._what = what
        self._thread_name = thread_name
        self._server: BackgroundServer | None = None

    def serve(self, app: ASGIApp) -> None:
        """Set the application :meth:`start` serves."""
        self._server = BackgroundServer(
            app, self._socket, what=self._what, name=self._thread_name, interface="asgi3"
        )

    def start(self) -> Self:
        if self._server is None:
            raise RuntimeError(f"{self._what} has no application to serve")
        self._server.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        else:
            self._socket.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
