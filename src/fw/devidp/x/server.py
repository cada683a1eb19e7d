"""The X-shaped stand-in served on loopback, in a background thread."""

from __future__ import annotations

from collections.abc import Iterable

from fw.devidp.loopback import LoopbackServer
from fw.devidp.model import DevClient
from fw.devidp.x.model import DEFAULT_X_USERS, XState, XUser
from fw.devidp.x.provider import XProvider


class RunningXProvider(LoopbackServer):
    """An X-shaped stand-in listening on loopback; a context manager that stops it on exit."""

    def __init__(
        self,
        *,
        users: Iterable[XUser] = DEFAULT_X_USERS,
        clients: Iterable[DevClient] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        code_lifetime: float = 30.0,
    ) -> None:
        super().__init__(host=host, port=port, what="the development stand-in for X", thread_name="fw-devx")
        self.state = XState(
            users={u.id: u for u in users},
            clients={c.client_id: c for c in clients},
            code_lifetime=code_lifetime,
        )
        self.provider = XProvider(self.state, self.origin)
        self.serve(self.provider.asgi)
