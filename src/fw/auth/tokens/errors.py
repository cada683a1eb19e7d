"""What can go wrong when fw trusts a token: one family of errors for every token protocol.

Access-token verification and the OpenID Connect relying party raise the same classes, so a
caller never needs to know which half of fw a failure came from.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """A step of a token protocol failed; ``reason`` names what, ``detail`` what was found (for logs)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


class TokenRejected(ProtocolError):
    """A token failed verification: shape, algorithm, signature or a claim."""


class ClaimRejected(TokenRejected):
    """A registered claim failed its check; ``claim`` names it, ``malformed`` says it was unusable.

    Callers that word rejections for people (an ID token's sign-in page) choose their words from
    these two facts; callers that only log keep ``reason``.
    """

    def __init__(self, reason: str, *, claim: str, malformed: bool = False) -> None:
        self.claim = claim
        self.malformed = malformed
        super().__init__(reason)


class AlgorithmRejected(TokenRejected):
    """The token names an algorithm outside the allow-list; ``algorithm`` is what it named."""

    def __init__(self, algorithm: object) -> None:
        self.algorithm = algorithm
        super().__init__(f"algorithm {algorithm!r} is not allowed")


class DiscoveryError(ProtocolError):
    """An issuer's metadata or keys could not be fetched or trusted; the message says where and why."""


class Unreachable(DiscoveryError):
    """The request got no HTTP answer at all; ``cause`` is the transport's own account."""

    def __init__(self, url: str, cause: Exception) -> None:
        self.cause = str(cause)
        super().__init__(f"{url} could not be fetched ({type(cause).__name__}: {cause or 'no answer'})")


class UnexpectedAnswer(DiscoveryError):
    """The endpoint answered, but not with what the protocol asks for; ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int) -> None:
        self.status = status
        super().__init__(message)


class IssuerMismatch(DiscoveryError):
    """A metadata document names another issuer than the one it was fetched for."""

    def __init__(self, url: str, issuer: str, named: object) -> None:
        self.named = named
        super().__init__(f"{url} names issuer {named!r}, not {issuer!r} (they must match exactly)")


class MalformedKeySet(DiscoveryError):
    """A JWKS document is not a key set fw can use."""
