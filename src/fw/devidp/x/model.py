"""The X-shaped stand-in's people, grants and test knobs, all in memory for one run or one test.

X identifies a person by a numeric string ``id`` that never changes and shows a ``username``
(the handle, which the person may change) and a ``name``; the stand-in keeps exactly those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from fw.devidp.model import AuthorizationGrant, DevClient

AUTHORIZE_PATH = "/i/oauth2/authorize"
TOKEN_PATH = "/2/oauth2/token"
USER_PATH = "/2/users/me"

#: The ways the stand-in's own-user lookup can be made to fail (:meth:`XState.fail_lookup`).
LookupFailure = Literal[
    "unauthorized",  # 401 problem JSON, as for a revoked or expired token
    "forbidden",  # 403 problem JSON, as for a token without users.read
    "rate_limited",  # 429 with x-rate-limit-reset
    "server_error",  # a 5xx problem JSON (503 unless another status is given)
    "missing_data",  # 200 with only an "errors" list
    "missing_id",  # 200 whose data has no id
    "numeric_id",  # 200 whose id is a JSON number
    "empty_id",  # 200 whose id is the empty string
    "not_an_object",  # 200 whose body is a JSON array
    "html",  # 200 text/html instead of JSON
    "proxy_error",  # a 5xx text/html page, as a proxy in front of X sends (502 unless another is given)
    "oversized",  # 200 JSON far larger than any profile
]

#: The default status of each failure that takes one.
FAILURE_STATUS: dict[str, int] = {"server_error": 503, "proxy_error": 502}
#: Seconds from now to the ``x-rate-limit-reset`` of a ``rate_limited`` answer: X's 15-minute window.
RATE_LIMIT_WINDOW = 15 * 60

#: The scopes X knows; anything else is refused at the authorization endpoint.
KNOWN_SCOPES = frozenset(
    {
        "tweet.read", "tweet.write", "tweet.moderate.write", "users.read", "users.email",
        "follows.read", "follows.write", "offline.access", "space.read", "mute.read",
        "mute.write", "like.read", "like.write", "list.read", "list.write", "block.read",
        "block.write", "bookmark.read", "bookmark.write", "media.write", "dm.read", "dm.write",
    }
)  # fmt: skip


@dataclass(frozen=True)
class XRequest:
    """One request the stand-in answered, as it arrived (secrets included: the stand-in is for tests)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    form: dict[str, str]


@dataclass(frozen=True)
class TokenFailure:
    """The RFC 6749 error the token endpoint answers instead of redeeming a code."""

    error: str
    description: str
    status: int


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
    """Everything the stand-in remembers; tests read the request lists and turn the knobs
    (through :class:`fw.testing.TestOAuthProvider`, which checks each setting)."""

    users: dict[str, XUser]
    clients: dict[str, DevClient]
    preset_user: str | None = None
    #: Seconds an authorization code stays redeemable (X: 30).
    code_lifetime: float = 30.0
    codes: dict[str, AuthorizationGrant] = field(default_factory=dict)
    access_tokens: dict[str, XTokenGrant] = field(default_factory=dict)
    refresh_tokens: dict[str, XTokenGrant] = field(default_factory=dict)
    #: Each authorization request's parameters, in order (the picker's own posts not included).
    authorizations: list[dict[str, str]] = field(default_factory=list)
    #: Every request answered, in order: authorize, token, lookup and avatar alike.
    requests: list[XRequest] = field(default_factory=list)
    #: The ``error`` sent back to the callback instead of a code.
    authorization_failure: str | None = None
    token_failure: TokenFailure | None = None
    lookup_failure: LookupFailure | None = None
    lookup_failure_status: int = 503
    lookup_reset_after: int = RATE_LIMIT_WINDOW

    @property
    def token_requests(self) -> list[XRequest]:
        """The requests to the token endpoint."""
        return [seen for seen in self.requests if seen.path == TOKEN_PATH]

    @property
    def lookups(self) -> list[XRequest]:
        """The own-user lookups."""
        return [seen for seen in self.requests if seen.path == USER_PATH]

    def user(self, key: str) -> XUser | None:
        """The user whose ``id`` or ``username`` is ``key``."""
        found = self.users.get(key)
        if found is not None:
            return found
        return next((u for u in self.users.values() if u.username == key), None)
