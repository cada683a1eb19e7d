"""What ``fw dev`` serves: the development OpenID provider and the X-shaped stand-in at one origin.

The stand-in answers on X's own paths (``/i/oauth2/authorize``, ``/2/oauth2/token``,
``/2/users/me``, its avatars), none of which the OpenID provider uses, so one loopback origin and
one client registration serve every mode: ``oidc_only`` reads the origin as its issuer,
``oauth_only`` puts X's paths on it (:meth:`fw.auth.Mode.dev_environment`).
"""

from __future__ import annotations

from collections.abc import Iterable

from joserfc.jwk import RSAKey
from starlette.types import ASGIApp, Receive, Scope, Send

from fw.devidp.loopback import LoopbackServer
from fw.devidp.model import DEFAULT_USERS, DevClient, ProviderState
from fw.devidp.provider import DevProvider
from fw.devidp.x.model import DEFAULT_X_USERS, XState
from fw.devidp.x.provider import STANDIN_PATHS, STANDIN_PREFIXES, XProvider


class _ByPath:
    """Requests for the stand-in's paths go to it, everything else to the OpenID provider."""

    def __init__(self, oidc: ASGIApp, x: ASGIApp) -> None:
        self.oidc = oidc
        self.x = x

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        ours = path in STANDIN_PATHS or path.startswith(STANDIN_PREFIXES)
        await (self.x if ours else self.oidc)(scope, receive, send)


class RunningDevProviders(LoopbackServer):
    """Both development providers on one loopback socket, each knowing the same ``clients``.

    ``key``: the OpenID provider's signing key (a fresh one without it).
    """

    def __init__(
        self,
        *,
        clients: Iterable[DevClient],
        host: str = "127.0.0.1",
        port: int = 0,
        key: RSAKey | None = None,
    ) -> None:
        super().__init__(
            host=host, port=port, what="the development identity provider", thread_name="fw-devidp"
        )
        registered = {client.client_id: client for client in clients}
        self.state = ProviderState(users={u.sub: u for u in DEFAULT_USERS}, clients=registered)
        self.x_state = XState(users={u.id: u for u in DEFAULT_X_USERS}, clients=dict(registered))
        self.provider = DevProvider(self.state, self.origin, key)
        self.x_provider = XProvider(self.x_state, self.origin)
        self.serve(_ByPath(self.provider.asgi, self.x_provider.asgi))
