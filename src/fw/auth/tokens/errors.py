"""What can go wrong when fw trusts a token: one family of errors for every token protocol.

Access-token verification and the OpenID Connect relying party raise the same classes, so a
caller never needs to know which half of fw a failure came from.
"""

from __future__ import annotations

import ssl
from collections.abc import Sequence

#: What an untrusted TLS certificate needs: the trust store is the system's unless SSL_CERT_FILE
#: (or SSL_CERT_DIR) names another, as httpx2 reads them; ``requests``' variable is not one of them.
CERTIFICATE_HINT = (
    "the server's TLS certificate is not trusted: fw trusts the system's certificate authorities, "
    "or the PEM bundle SSL_CERT_FILE names (set it to trust a private CA; REQUESTS_CA_BUNDLE is not read)"
)


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


class ProviderError(ProtocolError):
    """A provider's endpoint answered an OAuth 2.0 error (``error`` / ``error_description``,
    RFC 6749 section 5.2): one class for the OpenID and the plain OAuth sign-in alike."""

    def __init__(self, error: str, description: str = "") -> None:
        self.error = error
        self.description = description
        super().__init__(f"the identity provider answered {error}", description)


class DiscoveryError(ProtocolError):
    """An issuer's metadata or keys could not be fetched or trusted; the message says where and why."""


class Unreachable(DiscoveryError):
    """The request got no HTTP answer at all; ``cause`` is the transport's own account.

    A certificate that did not verify is named as such (``untrusted_certificate``), with how a
    private certificate authority is trusted: that is the fix, and the transport's words do not say it.
    """

    def __init__(self, url: str, cause: Exception) -> None:
        self.cause = str(cause)
        self.untrusted_certificate = _certificate_failed(cause)
        message = f"{url} could not be fetched ({type(cause).__name__}: {cause or 'no answer'})"
        super().__init__(f"{message}; {CERTIFICATE_HINT}" if self.untrusted_certificate else message)


def _certificate_failed(cause: BaseException) -> bool:
    """Whether the failure, or one it arose from, is a certificate that did not verify."""
    seen: set[int] = set()
    error: BaseException | None = cause
    while error is not None and id(error) not in seen:
        if isinstance(error, ssl.SSLCertVerificationError):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return "CERTIFICATE_VERIFY_FAILED" in str(cause)


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


class IncompleteMetadata(DiscoveryError):
    """A metadata document lacks a member the protocol needs; ``missing`` names them."""

    def __init__(self, url: str, missing: Sequence[str]) -> None:
        self.missing = tuple(missing)
        super().__init__(f"{url} has no {', '.join(self.missing)}")


class UntrustedEndpoint(DiscoveryError):
    """A metadata document names endpoints fw may not use: ``refused`` holds (member, value,
    why) for each; ``member`` and ``url`` are the first one's.

    The rule is the issuer's own (:func:`fw.auth.tokens.urls.transport_problem`): an https issuer
    whose metadata names an http token endpoint would have the client secret sent in clear. Every
    refused member is named, as a proxy that lost the scheme spoils all of them at once.
    """

    def __init__(self, metadata_url: str, refused: Sequence[tuple[str, object, str]]) -> None:
        self.refused = tuple(refused)
        self.member, self.url, _ = self.refused[0]
        named = "; ".join(f"{member} {url!r}, which {problem}" for member, url, problem in self.refused)
        super().__init__(f"{metadata_url} names {named}")


class MalformedKeySet(DiscoveryError):
    """A JWKS document is not a key set fw can use."""
