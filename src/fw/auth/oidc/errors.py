"""Why a sign-in failed, in terms a relying party can act on without parsing messages.

:class:`OidcError` is the token core's :class:`~fw.auth.tokens.ProtocolError`,
:class:`TokenRejected` the core's one rejection and :class:`ProviderError` the core's OAuth
error answer, so ``except OidcError`` still catches a rejected ID token and a refused code,
and both halves of fw reject tokens with the same class.
"""

from __future__ import annotations

from fw.auth.tokens.errors import ProtocolError, ProviderError, TokenRejected

__all__ = ["OidcError", "ProviderError", "ProviderUnavailable", "TokenRejected"]

#: A protocol step failed; ``reason`` is safe to show, ``detail`` is for logs.
OidcError = ProtocolError


class ProviderUnavailable(OidcError):
    """The provider could not be reached or answered something that is not the protocol."""
