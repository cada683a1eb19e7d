"""Test helper for ``oauth_only``: the X-shaped stand-in per test, configured like ``fw dev`` does.

    with fw.testing.oauth_provider(login_user="alice") as x:
        monkeypatch.setenv(...) for each of x.env, or fw.testing.configured(env=x.env, ...)
        with fw.testing.BrowserClient(app, x) as client:
            client.login()                      # stand-in, callback, session: all followed
            x.fail_lookup("rate_limited")       # the next sign-in meets a 429

Every way X can fail a sign-in is one call, in force until called again with ``None``:
``fail_authorization("access_denied")`` (the callback carries an error), ``fail_token(error,
description)`` (the code redemption is refused), ``fail_lookup(failure)`` (the own-user lookup
answers a 401/403 problem, a 429 with ``x-rate-limit-reset``, a 5xx, a malformed profile, HTML or
megabytes; see :data:`fw.devidp.x.LookupFailure`).

The stand-in records every request it answered (``state.requests``, with the views
``state.authorizations``, ``state.token_requests``, ``state.lookups``) and every access token it
issued (``issued_tokens``), so a test can check what the application sent and that it kept no token.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable, Iterator
from typing import get_args

from fw.devidp import DevClient
from fw.devidp.x import DEFAULT_X_USERS, LookupFailure, RunningXProvider, XState, XUser
from fw.devidp.x.model import FAILURE_STATUS, RATE_LIMIT_WINDOW, TokenFailure


# Alike in shape to fw.testing.oidc.TestIdentityProvider (a running stand-in and its client): the
# common part is three attributes; the providers, and so every control, differ.
class TestOAuthProvider:
    """A running X-shaped stand-in plus the confidential client a test app uses."""

    __test__ = False  # not a pytest test class

    def __init__(self, running: RunningXProvider, client_id: str, client_secret: str) -> None:
        self.running = running
        self.client_id = client_id
        self.client_secret = client_secret

    @property
    def origin(self) -> str:
        """Where the stand-in listens: every request there goes over the network."""
        return self.running.origin

    @property
    def state(self) -> XState:
        return self.running.state

    @property
    def authorization_endpoint(self) -> str:
        return self.running.provider.authorization_endpoint

    @property
    def token_endpoint(self) -> str:
        return self.running.provider.token_endpoint

    @property
    def user_endpoint(self) -> str:
        return self.running.provider.user_endpoint

    @property
    def env(self) -> dict[str, str]:
        """The variables ``fw dev`` injects for ``oauth_only``, for an app configured from the environment."""
        return {
            "AUTH_OAUTH_CLIENT_ID": self.client_id,
            "AUTH_OAUTH_CLIENT_SECRET": self.client_secret,
            "AUTH_OAUTH_AUTHORIZATION_ENDPOINT": self.authorization_endpoint,
            "AUTH_OAUTH_TOKEN_ENDPOINT": self.token_endpoint,
            "AUTH_OAUTH_USER_ENDPOINT": self.user_endpoint,
        }

    def login_user(self, who: str | None) -> None:
        """Preset who signs in (their ``id`` or ``username``): authorize answers without the picker."""
        if who is not None and self.state.user(who) is None:
            raise LookupError(f"no stand-in user {who!r}; add it with oauth_provider(users=...)")
        self.state.preset_user = who

    @property
    def issued_tokens(self) -> list[str]:
        """Every access token issued so far, oldest first."""
        return list(self.state.access_tokens)

    def profile(self, who: str) -> dict[str, str]:
        """The ``data`` a good own-user lookup answers for ``who`` (``id`` or ``username``)."""
        user = self.state.user(who)
        if user is None:
            raise LookupError(f"no stand-in user {who!r}; add it with oauth_provider(users=...)")
        return self.running.provider.profile(user, ["profile_image_url"])

    def fail_authorization(self, error: str | None) -> None:
        """Send the browser back to the callback with ``error`` (e.g. ``access_denied``) instead of a code."""
        if error is not None and not error:
            raise ValueError("an authorization error needs its RFC 6749 code, e.g. 'access_denied'")
        self.state.authorization_failure = error

    def fail_token(self, error: str | None, description: str = "", *, status: int = 400) -> None:
        """Refuse each code redemption with the RFC 6749 ``error`` and ``description``."""
        if error is None:
            self.state.token_failure = None
            return
        if not error or not 400 <= status <= 599:
            raise ValueError(f"a token error needs its RFC 6749 code and a 4xx or 5xx status, not {status}")
        self.state.token_failure = TokenFailure(error, description, status)

    def fail_lookup(
        self,
        failure: LookupFailure | None,
        *,
        status: int | None = None,
        reset_after: int = RATE_LIMIT_WINDOW,
    ) -> None:
        """Make the own-user lookup fail as ``failure`` until called again with ``None``.

        ``status`` picks the 5xx of ``server_error`` (503) and ``proxy_error`` (502);
        ``reset_after`` the seconds until a ``rate_limited`` answer's ``x-rate-limit-reset``.
        """
        if failure is not None and failure not in get_args(LookupFailure):
            known = ", ".join(get_args(LookupFailure))
            raise ValueError(f"no lookup failure {failure!r}; use one of: {known}")
        chosen = FAILURE_STATUS.get(failure or "", 503) if status is None else status
        if failure in FAILURE_STATUS and not 500 <= chosen <= 599:
            raise ValueError(f"a {failure} has a 5xx status, not {chosen}")
        if status is not None and failure not in FAILURE_STATUS:
            raise ValueError(f"{failure!r} takes no status; only {' and '.join(FAILURE_STATUS)} do")
        if reset_after < 0:
            raise ValueError(f"reset_after is seconds from now, not {reset_after}")
        self.state.lookup_failure = failure
        self.state.lookup_failure_status = chosen
        self.state.lookup_reset_after = reset_after

    def expire_codes(self) -> None:
        """Make every authorization code issued so far expired (the token endpoint then refuses it)."""
        for grant in self.state.codes.values():
            grant.expires_at = 0.0

    def add_user(self, user: XUser) -> None:
        self.state.users[user.id] = user

    def remove_user(self, who: str) -> None:
        user = self.state.user(who)
        if user is not None:
            del self.state.users[user.id]


@contextlib.contextmanager
def oauth_provider(
    *,
    users: Iterable[XUser] = DEFAULT_X_USERS,
    client_id: str = "fw-test-app",
    client_secret: str | None = None,
    redirect_uris: Iterable[str] = (),
    login_user: str | None = None,
    code_lifetime: float = 30.0,
) -> Iterator[TestOAuthProvider]:
    """Start an X-shaped stand-in on loopback for the duration of the block.

    The confidential client ``client_id`` is registered with a fresh secret (or ``client_secret``);
    with no ``redirect_uris`` any loopback callback is accepted, as X accepts a registered
    ``http://127.0.0.1:<port>/...`` for local development.
    """
    secret = client_secret or secrets.token_urlsafe(24)
    with RunningXProvider(
        users=users,
        clients=[DevClient(client_id, secret, tuple(redirect_uris))],
        code_lifetime=code_lifetime,
    ) as running:
        provider = TestOAuthProvider(running, client_id, secret)
        if login_user is not None:
            provider.login_user(login_user)
        yield provider
