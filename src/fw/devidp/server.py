"""The development OpenID provider served on loopback, in a background thread."""

from __future__ import annotations

from collections.abc import Iterable

from fw.devidp.loopback import LoopbackServer
from fw.devidp.model import DEFAULT_USERS, DevClient, DevUser, ProviderState
from fw.devidp.provider import DevProvider


class RunningProvider(LoopbackServer):
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
        super().__init__(
            host=host, port=port, what="the development identity provider", thread_name="fw-devidp"
        )
        self.issuer = self.origin
        self.state = ProviderState(
            users={u.sub: u for u in users},
            clients={c.client_id: c for c in clients},
            preset_user=preset_user,
            advertise_select_account=advertise_select_account,
            device_interval=device_interval,
        )
        self.provider = DevProvider(self.state, self.issuer)
        self.serve(self.provider.asgi)

    def add_client(self, client: DevClient) -> None:
        self.state.clients[client.client_id] = client
