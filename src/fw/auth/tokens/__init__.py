"""The token core: what access-token verification and the OpenID relying party share.

Protocol code only, with no knowledge of the App or of configuration: the errors, the
algorithm table, URL trust, the bounded JSON fetch, issuer discovery (the metadata and every
endpoint it names checked, kept for a while), the JWKS cache, compact
JWS verification and the registered-claim checks. :mod:`fw.auth.jwt` (access tokens) and
:mod:`fw.auth.oidc` (sign-in) add their own rules on top.
"""

from fw.auth.tokens.algorithms import ALGORITHMS, Key, algorithm_problem, fits
from fw.auth.tokens.claims import ClaimRules, audiences_of, check_claims, numeric_date
from fw.auth.tokens.discovery import (
    METADATA_MAX_AGE,
    Discovery,
    IssuerDiscovery,
    check_endpoints,
    endpoints,
    issuer_metadata,
    jwks_uri_for,
    metadata_url,
)
from fw.auth.tokens.errors import (
    AlgorithmRejected,
    ClaimRejected,
    DiscoveryError,
    IncompleteMetadata,
    IssuerMismatch,
    MalformedKeySet,
    ProtocolError,
    ProviderError,
    TokenRejected,
    UnexpectedAnswer,
    Unreachable,
    UntrustedEndpoint,
)
from fw.auth.tokens.fetch import MAX_METADATA_BYTES, Answer, fetch_bounded, fetch_json
from fw.auth.tokens.jwks import JwksCache, KeySet, parse_jwks
from fw.auth.tokens.jws import MAX_TOKEN_BYTES, CompactJws, JwsVerifier, normalize_token_type
from fw.auth.tokens.urls import is_loopback_host, origin, same_origin, transport_problem

__all__ = [
    "ALGORITHMS",
    "MAX_METADATA_BYTES",
    "MAX_TOKEN_BYTES",
    "METADATA_MAX_AGE",
    "AlgorithmRejected",
    "Answer",
    "ClaimRejected",
    "ClaimRules",
    "CompactJws",
    "Discovery",
    "DiscoveryError",
    "IncompleteMetadata",
    "IssuerDiscovery",
    "IssuerMismatch",
    "JwksCache",
    "JwsVerifier",
    "Key",
    "KeySet",
    "MalformedKeySet",
    "ProtocolError",
    "ProviderError",
    "TokenRejected",
    "UnexpectedAnswer",
    "Unreachable",
    "UntrustedEndpoint",
    "algorithm_problem",
    "audiences_of",
    "check_claims",
    "check_endpoints",
    "endpoints",
    "fetch_bounded",
    "fetch_json",
    "fits",
    "is_loopback_host",
    "issuer_metadata",
    "jwks_uri_for",
    "metadata_url",
    "normalize_token_type",
    "numeric_date",
    "origin",
    "parse_jwks",
    "same_origin",
    "transport_problem",
]
