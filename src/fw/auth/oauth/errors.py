"""Every way a sign-in at a provider without ID tokens can fail, as a type the mode maps to an answer.

The token core's :class:`~fw.auth.tokens.ProtocolError` is the base, so ``reason`` is safe to
show and ``detail`` is for logs. No message ever carries the access token.
"""

from __future__ import annotations

from fw.auth.tokens.errors import ProtocolError


class OauthError(ProtocolError):
    """A step of the sign-in failed because of what the provider answered (the browser may retry)."""


class ProviderRefused(OauthError):
    """The provider answered with an OAuth error (``error`` / ``error_description``)."""

    def __init__(self, error: str, description: str = "") -> None:
        self.error = error
        self.description = description
        super().__init__(f"the provider answered {error}", description)


class ProfileRejected(OauthError):
    """The own-user lookup was refused or answered something that is not a profile."""


class RateLimited(OauthError):
    """The provider's rate limit for this application is spent; ``reset`` is when it refills (UNIX time)."""

    def __init__(self, reset: int | None) -> None:
        self.reset = reset
        super().__init__("the provider's rate limit is exhausted", f"reset at {reset}")


class ProviderUnavailable(OauthError):
    """The provider could not be reached, or answered with a server error."""
