"""Why a sign-in failed, in terms a relying party can act on without parsing messages."""

from __future__ import annotations


class OidcError(Exception):
    """A protocol step failed; ``reason`` is safe to show, ``detail`` is for logs."""

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


class ProviderError(OidcError):
    """The provider answered with an OAuth error (``error`` / ``error_description``)."""

    def __init__(self, error: str, description: str = "") -> None:
        self.error = error
        self.description = description
        super().__init__(f"the identity provider answered {error}", description)


class ProviderUnavailable(OidcError):
    """The provider could not be reached or answered something that is not the protocol."""


class TokenRejected(OidcError):
    """An ID token failed verification (signature, issuer, audience, lifetime, nonce...)."""
