"""Serving the development provider on a loopback socket, in a background thread.

The provider checks no password, so it refuses any address a second machine could reach and any
``APP_ENV`` other than ``dev``: a misconfigured deployment fails loudly instead of letting anyone in.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterable
from types import TracebackType

from fw.background import BackgroundServer
from fw.devidp.model import DEFAULT_USERS, DevClient, DevUser, ProviderState
from fw.devidp.provider import DevProvider


class NotLoopbackError(RuntimeError):
    """The development provider was asked to run where it could be reached by others."""


def _check_host(host: str) -> None:
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise NotLoopbackError(
            f"the development identity provider only binds to loopback addresses, not {host!r}"
        )


def _check_env() -> None:
    env = os.environ.get("APP_ENV", "") or "dev"
    if env != "dev":
        raise NotLoopbackError(
            f"the development identity provider runs only with APP_ENV=dev (APP_ENV is {env!r})"
        )


class RunningProvider:
    """A development provider listening on loopback; a context manager that stops it on exit."""

    def __init__(
        self,
        *,
        users: Iterable[DevUser] = DEFAULT_USERS,
        clients: Iterable[DevClient] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        preset_user: str | None = None,
        advertise_select_account: bool = True,
        device_interval: int = 5,
    ) -> None:
        _check_env()
        _check_host(host)
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host.strip("[]"), port))
        self._socket.listen(128)
        bound_port = self._socket.getsockname()[1]
        shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
        self.issuer = f"http://{shown}:{bound_port}"
        self.state = ProviderState(
            users={u.sub: u for u in users},
            clients={c.client_id: c for c in clients},
            preset_user=preset_user,
            advertise_select_account=advertise_select_account,
            device_interval=device_interval,
        )
        self.provider = DevProvider(self.state, self.issuer)
        self._server = BackgroundServer(
            self.provider.asgi,
            self._socket,
            what="the development identity provider",
            name="fw-devidp",
            interface="asgi3",
        )

    def start(self) -> RunningProvider:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def add_client(self, client: DevClient) -> None:
        self.state.clients[client.client_id] = client

    def __enter__(self) -> RunningProvider:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
