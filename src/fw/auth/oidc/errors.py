"""Why a sign-in failed, in terms a relying party can act on without parsing messages.

:class:`OidcError` is the token core's :class:`~fw.auth.tokens.ProtocolError` and
:class:`TokenRejected` the core's one rejection, so ``except OidcError`` still catches a
rejected ID token and both halves of fw reject tokens with the same class.
"""

from __future__ import annotations

from fw.auth.tokens.errors import ProtocolError, TokenRejected

__all__ = ["OidcError", "ProviderError", "ProviderUnavailable", "TokenRejected"]

#: A protocol step failed; ``reason`` is safe to show, ``detail`` is for logs.
OidcError = ProtocolError


class ProviderError(OidcError):
    """The provider answered with an OAuth error (``error`` / ``error_description``)."""

    def __init__(self, error: str, description: str = "") -> None:
        self.error = error
        self.description = description
        super().__init__(f"the identity provider answered {error}", description)


class ProviderUnavailable(OidcError):
    """The provider could not be reached or answered something that is not the protocol."""
