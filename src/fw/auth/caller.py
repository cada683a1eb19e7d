"""What a handler learns about who is calling: the bearer caller and the protocol-neutral result.

The auth middleware records the result in the ASGI scope; these accessors only read it, so a
handler never depends on which mode authenticated the request.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from starlette.requests import HTTPConnection

from fw.auth.accounts import Identity

SCOPE_KEY = "fw.authentication"


class Principal(Protocol):
    """Whoever a mode authenticated: each mode defines its own (``Caller``, ``fw.auth.User``...).

    Only the account is common to all of them, so a new mode adds its principal without this
    module knowing it; its own accessor (``fw.auth.user``, ``fw.auth.bearer``) checks the type.
    """

    @property
    def account_id(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Caller:
    """A bearer-token caller (``jwt_only``). ``account_id`` is the identity-claim value."""

    account_id: str
    identity: Identity


@dataclass(frozen=True, slots=True)
class Authentication:
    """Protocol-independent result: how the request was authenticated and as whom.

    ``method`` is ``"bearer"`` for access tokens and ``"session"`` for browser logins;
    ``principal`` is the mode's own object (a :class:`Caller`, a browser ``User``...).
    """

    method: Literal["bearer", "session"]
    account_id: str
    issuer: str
    subject: str
    principal: Principal


def record(scope: MutableMapping[str, Any], authentication: Authentication) -> None:
    scope[SCOPE_KEY] = authentication


def request_authentication(request: HTTPConnection) -> Authentication | None:
    """The authentication result of this request, or ``None`` for an anonymous one."""
    result = request.scope.get(SCOPE_KEY)
    return result if isinstance(result, Authentication) else None


def bearer(request: HTTPConnection) -> Caller | None:
    """The verified bearer caller, or ``None`` when the request carried no token."""
    result = request.scope.get(SCOPE_KEY)
    if isinstance(result, Authentication) and isinstance(result.principal, Caller):
        return result.principal
    return None
