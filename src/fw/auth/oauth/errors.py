"""Every way a sign-in at a provider without ID tokens can fail, as a type the mode maps to an answer.

The token core's :class:`~fw.auth.tokens.ProtocolError` is the base, so ``reason`` is safe to
show and ``detail`` is for logs. A refusal in the OAuth error format is the core's
:class:`~fw.auth.tokens.ProviderError`, the same class the OpenID sign-in raises. No message
ever carries the access token.
"""

from __future__ import annotations

from fw.auth.tokens.errors import ProtocolError, ProviderError


class OauthError(ProtocolError):
    """A step of the sign-in failed because of what the provider answered (the browser may retry)."""


class ProfileRejected(OauthError):
    """The own-user lookup was refused or answered something that is not a profile."""


class RateLimited(OauthError):
    """The provider's rate limit for this application is spent; ``reset`` is when it refills (UNIX time)."""

    def __init__(self, reset: int | None) -> None:
        self.reset = reset
        super().__init__("the provider's rate limit is exhausted", f"reset at {reset}")


class ProviderUnavailable(OauthError):
    """The provider could not be reached, or answered with a server error."""


#: The name this package gave :class:`~fw.auth.tokens.ProviderError` before OpenID and plain
#: OAuth shared one class; kept so code importing it from ``fw.auth.oauth`` keeps working.
ProviderRefused = ProviderError
