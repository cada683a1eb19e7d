"""Bearer-token protocol pieces: discovery, the JWKS cache and the verifier. No App knowledge."""

from fw.auth.jwt.discovery import DiscoveryError, jwks_uri_for, metadata_url
from fw.auth.jwt.jwks import JwksCache, KeySet, parse_jwks
from fw.auth.jwt.keys import ALGORITHMS, algorithm_problem
from fw.auth.jwt.verifier import Policy, TokenRejected, VerifiedToken, Verifier, scopes_of

__all__ = [
    "ALGORITHMS",
    "DiscoveryError",
    "JwksCache",
    "KeySet",
    "Policy",
    "TokenRejected",
    "VerifiedToken",
    "Verifier",
    "algorithm_problem",
    "jwks_uri_for",
    "metadata_url",
    "parse_jwks",
    "scopes_of",
]
