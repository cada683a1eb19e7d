"""Test helper for ``oidc_only``: a development OpenID provider per test.

with fw.testing.identity_provider() as idp:
    fw.testing.login_user(idp, "alice")
    with fw.testing.BrowserClient(app, idp) as client:
        client.get("/auth/login")          # provider, callback, session: all followed
        assert client.get("/me").status_code == 200
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable, Iterator

from fw.devidp import DEFAULT_USERS, DevClient, DevUser, RunningProvider
from fw.devidp.model import ProviderState


class TestIdentityProvider:
    """A running development provider plus the client registration a test app uses."""

    __test__ = False  # not a pytest test class

    def __init__(self, running: RunningProvider, client_id: str, client_secret: str) -> None:
        self.running = running
        self.client_id = client_id
        self.client_secret = client_secret

    @property
    def issuer(self) -> str:
        return self.running.issuer

    @property
    def origin(self) -> str:
        """Where the provider listens: every request there goes over the network."""
        return self.running.issuer

    @property
    def state(self) -> ProviderState:
        """What the provider saw: ``authorizations``, ``end_sessions``, pending grants."""
        return self.running.state

    @property
    def env(self) -> dict[str, str]:
        """The variables ``fw dev`` injects, for an app configured from the environment."""
        return {
            "AUTH_OIDC_ISSUER": self.issuer,
            "AUTH_OIDC_CLIENT_ID": self.client_id,
            "AUTH_OIDC_CLIENT_SECRET": self.client_secret,
        }

    def login_user(self, sub: str | None) -> None:
        """Preset who signs in: the authorize step answers at once, without the picker page."""
        if sub is not None and sub not in self.state.users:
            raise LookupError(f"no development user {sub!r}; add it with identity_provider(users=...)")
        self.state.preset_user = sub

    def add_user(self, user: DevUser) -> None:
        self.state.users[user.sub] = user

    def remove_user(self, sub: str) -> None:
        self.state.users.pop(sub, None)

    def approve_device(self, user_code: str, sub: str) -> None:
        self.running.provider.approve_device(user_code, sub)

    def deny_device(self, user_code: str) -> None:
        self.running.provider.deny_device(user_code)


@contextlib.contextmanager
def identity_provider(
    *,
    users: Iterable[DevUser] = DEFAULT_USERS,
    client_id: str = "fw-test-app",
    client_secret: str | None = None,
    redirect_uris: Iterable[str] = (),
    public_clients: Iterable[str] = ("fw-test-device",),
    advertise_select_account: bool = True,
    device_interval: int = 1,
    login_user: str | None = None,
) -> Iterator[TestIdentityProvider]:
    """Start a development provider on loopback for the duration of the block.

    The confidential client ``client_id`` is registered with a fresh secret; each name in
    ``public_clients`` is registered without one (device flow).
    """
    secret = client_secret or secrets.token_urlsafe(24)
    clients = [DevClient(client_id, secret, tuple(redirect_uris))]
    clients.extend(DevClient(name) for name in public_clients)
    with RunningProvider(
        users=users,
        clients=clients,
        preset_user=login_user,
        advertise_select_account=advertise_select_account,
        device_interval=device_interval,
    ) as running:
        yield TestIdentityProvider(running, client_id, secret)
