"""The development provider's people, clients and short-lived grants.

Everything lives in memory: the provider exists for one development run or one test, and losing
its state on restart is exactly what a developer expects from it.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DevUser:
    """A person offered on the picker page; ``sub`` is the stable subject identifier."""

    sub: str
    name: str = ""
    email: str = ""
    claims: dict[str, Any] = field(default_factory=dict)

    def id_claims(self) -> dict[str, Any]:
        result: dict[str, Any] = {"sub": self.sub}
        if self.name:
            result["name"] = self.name
            result["preferred_username"] = self.name
        if self.email:
            result["email"] = self.email
            result["email_verified"] = True
        result.update(self.claims)
        return result


@dataclass(frozen=True)
class DevClient:
    """A registered client. No secret: a public client (device flow). No redirect URIs: loopback ones pass."""

    client_id: str
    client_secret: str = ""
    redirect_uris: tuple[str, ...] = ()
    post_logout_redirect_uris: tuple[str, ...] = ()


DEFAULT_USERS = (
    DevUser("alice", "Alice Example", "alice@example.test"),
    DevUser("bob", "Bob Example", "bob@example.test"),
)


@dataclass
class AuthorizationGrant:
    """What ``/authorize`` promised: redeemed once at ``/token``."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    nonce: str
    scope: str
    sub: str
    #: When the person proved who they are; ``None``: the ID token says nothing (a test's choice).
    auth_time: int | None
    expires_at: float


@dataclass
class DeviceGrant:
    """One RFC 8628 device authorization, from issue to approval or expiry."""

    client_id: str
    scope: str
    user_code: str
    expires_at: float
    interval: int
    sub: str | None = None
    denied: bool = False
    last_poll: float = 0.0
    redeemed: bool = False


@dataclass
class RefreshGrant:
    client_id: str
    sub: str
    scope: str
    auth_time: int | None


@dataclass
class ProviderState:
    """Everything the provider remembers; tests inspect it (``authorizations`` lists each request)."""

    users: dict[str, DevUser]
    clients: dict[str, DevClient]
    preset_user: str | None = None
    advertise_select_account: bool = True
    device_interval: int = 5
    codes: dict[str, AuthorizationGrant] = field(default_factory=dict)
    devices: dict[str, DeviceGrant] = field(default_factory=dict)
    refresh_tokens: dict[str, RefreshGrant] = field(default_factory=dict)
    access_tokens: dict[str, str] = field(default_factory=dict)
    authorizations: list[dict[str, str]] = field(default_factory=list)
    #: The provider's own sign-in per person (sub -> when they last proved who they are): later
    #: authorizations answer from it, as a real provider's session does, unless ``prompt=login``
    #: or ``max_age`` demand a new proof.
    signed_in: dict[str, int] = field(default_factory=dict)
    #: Test levers for a misbehaving provider: answer this ``auth_time`` whatever happened, or
    #: leave ``auth_time`` out of the ID token altogether.
    answer_auth_time: int | None = None
    omit_auth_time: bool = False
    end_sessions: list[dict[str, str]] = field(default_factory=list)

    def user(self, sub: str) -> DevUser | None:
        return self.users.get(sub)

    def proof_time(self, sub: str, *, prompt: str, max_age: str | None, now: int) -> int | None:
        """When ``sub`` proved who they are for this authorization (OIDC Core 3.1.2.1).

        ``prompt=login`` and a ``max_age`` the provider's own sign-in is older than (``0``:
        always) make the person prove it again now; otherwise the earlier proof answers.
        """
        last = self.signed_in.get(sub)
        window = int(max_age) if max_age is not None and max_age.isdigit() else None
        stale = window is not None and (window == 0 or last is None or now - last > window)
        if last is None or "login" in prompt.split() or stale:
            last = self.signed_in[sub] = now
        if self.omit_auth_time:
            return None
        return self.answer_auth_time if self.answer_auth_time is not None else last

    def new_user_code(self) -> str:
        alphabet = "BCDFGHJKLMNPQRSTVWXZ"
        while True:
            raw = "".join(secrets.choice(alphabet) for _ in range(8))
            code = f"{raw[:4]}-{raw[4:]}"
            if all(grant.user_code != code for grant in self.devices.values()):
                return code

    def device_by_user_code(self, user_code: str) -> tuple[str, DeviceGrant] | None:
        wanted = user_code.strip().upper().replace(" ", "")
        if len(wanted) == 8:
            wanted = f"{wanted[:4]}-{wanted[4:]}"
        for device_code, grant in self.devices.items():
            if grant.user_code == wanted and grant.expires_at > time.time():
                return device_code, grant
        return None
