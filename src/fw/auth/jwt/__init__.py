"""Bearer access-token policy on top of the token core: what an API accepts, and the verifier.

Discovery, the JWKS cache, the algorithm table and URL trust live in :mod:`fw.auth.tokens`.
No App knowledge.
"""

from fw.auth.jwt.verifier import Policy, VerifiedToken, Verifier, scopes_of
from fw.auth.tokens.errors import TokenRejected
from fw.auth.tokens.jws import normalize_token_type

__all__ = [
    "Policy",
    "TokenRejected",
    "VerifiedToken",
    "Verifier",
    "normalize_token_type",
    "scopes_of",
]
