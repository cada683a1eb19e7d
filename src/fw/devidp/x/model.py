"""The X-shaped stand-in's people, grants and test knobs, all in memory for one run or one test.

X identifies a person by a numeric string ``id`` that never changes and shows a ``username``
(the handle, which the person may change) and a ``name``; the stand-in keeps exactly those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from fw.devidp.model import AuthorizationGrant, DevClient

#: The ways the stand-in's own-user lookup can be made to fail (:meth:`XState.fail_lookup`).
LookupFailure = Literal[
    "unauthorized",  # 401 problem JSON, as for a revoked or expired token
    "forbidden",  # 403 problem JSON, as for a token without users.read
    "rate_limited",  # 429 with x-rate-limit-reset
    "server_error",  # a 5xx problem JSON (503 unless another status is given)
    "missing_data",  # 200 with only an "errors" list
    "missing_id",  # 200 whose data has no id
    "numeric_id",  # 200 whose id is a JSON number
    "html",  # 200 text/html instead of JSON
    "oversized",  # 200 JSON far larger than any profile
]

#: The scopes X knows; anything else is refused at the authorization endpoint.
KNOWN_SCOPES = frozenset(
    {
        "tweet.read", "tweet.write", "tweet.moderate.write", "users.read", "users.email",
        "follows.read", "follows.write", "offline.access", "space.read", "mute.read",
        "mute.write", "like.read", "like.write", "list.read", "list.write", "block.read",
        "block.write", "bookmark.read", "bookmark.write", "media.write", "dm.read", "dm.write",
    }
)  # fmt: skip


@dataclass
class XTokenGrant:
    """What an access or refresh token stands for."""

    client_id: str
    user_id: str
    scope: str
    expires_at: float


@dataclass(frozen=True)
class XUser:
    """A person on the picker page. ``profile_image_url`` empty: the stand-in serves an avatar."""

    id: str
    username: str
    name: str = ""
    profile_image_url: str = ""


DEFAULT_X_USERS = (
    XUser("1001", "alice", "Alice Example"),
    XUser("1002", "bob", "Bob Example"),
)


@dataclass
class XState:
    """Everything the stand-in remembers; tests read the request lists and turn the knobs."""

    users: dict[str, XUser]
    clients: dict[str, DevClient]
    preset_user: str | None = None
    #: Seconds an authorization code stays redeemable (X: 30).
    code_lifetime: float = 30.0
    codes: dict[str, AuthorizationGrant] = field(default_factory=dict)
    access_tokens: dict[str, XTokenGrant] = field(default_factory=dict)
    refresh_tokens: dict[str, XTokenGrant] = field(default_factory=dict)
    #: Each authorization request's parameters, in order.
    authorizations: list[dict[str, str]] = field(default_factory=list)
    #: Each token request's form fields (secrets included: the stand-in is for tests).
    token_requests: list[dict[str, str]] = field(default_factory=list)
    #: Each own-user lookup: its query string and the names of the headers it carried.
    lookups: list[dict[str, str]] = field(default_factory=list)
    lookup_failure: LookupFailure | None = None
    lookup_failure_status: int = 503

    def user(self, key: str) -> XUser | None:
        """The user whose ``id`` or ``username`` is ``key``."""
        found = self.users.get(key)
        if found is not None:
            return found
        return next((u for u in self.users.values() if u.username == key), None)

    def fail_lookup(self, failure: LookupFailure | None, *, status: int = 503) -> None:
        """Make every following own-user lookup fail as ``failure`` (``None``: answer normally)."""
        if failure == "server_error" and not 500 <= status <= 599:
            raise ValueError(f"a server error has a 5xx status, not {status}")
        self.lookup_failure = failure
        self.lookup_failure_status = status
