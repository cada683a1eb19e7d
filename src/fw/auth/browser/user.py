"""The signed-in person as handlers see it in the browser modes: ``fw.auth.user(request)``.

A :class:`fw.auth.caller.Principal`: the session middleware records it, this accessor reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import HTTPConnection

from fw.auth.caller import SCOPE_KEY, Authentication
from fw.caching import SESSION_DEPENDENT


@dataclass(frozen=True)
class User:
    """A browser session's account.

    ``key`` is the account link's value: the verified ``identity_claim`` (``sub`` by default) at
    ``issuer`` (after a passkey sign-in: ``issuer`` is ``"passkey"`` and ``key`` the account
    ID). ``display_name`` and ``email`` come from the account resolver.
    """

    account_id: str
    display_name: str
    email: str
    issuer: str
    key: str
    #: How this session's sign-in was proved: ``"oidc"`` (the provider), ``"passkey"`` or ``"oauth"``.
    method: str = "oidc"
    #: When that proof happened (UNIX time), ``None`` when the provider did not say.
    auth_time: int | None = None
    #: ``oauth_only`` (empty elsewhere): the provider's name (``"x"``), the user's ID there (the
    #: account link), and the handle (without @) and avatar URL copied at login (they go stale on
    #: rename). ``email`` stays empty unless the account resolver supplies one.
    provider: str = ""
    subject: str = ""
    username: str = ""
    avatar_url: str = ""


def user(request: HTTPConnection) -> User | None:
    """The signed-in user, or ``None`` for an anonymous request.

    Read from the one authentication record the middleware leaves, so it cannot disagree with
    ``fw.request_authentication``. The answer to a request that asked is ``no-store``
    (:mod:`fw.caching`).
    """
    scope = request.scope
    scope[SESSION_DEPENDENT] = True  # the answer now depends on who is signed in: no-store
    found = scope.get(SCOPE_KEY)
    if isinstance(found, Authentication) and isinstance(found.principal, User):
        return found.principal
    return None
