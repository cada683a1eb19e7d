"""DPoP (RFC 9449): proofs of possession for sender-constrained access tokens.

Protocol code only, with no knowledge of the App, the configuration or the modes: proof
verification on the token core's JWS reader, the normalised URI an ``htu`` names, server
nonces, the in-process replay record.
The ``jwt_only`` mode composes them with its bearer verification.
"""

from fw.auth.dpop.errors import DpopError, DpopRejected
from fw.auth.dpop.htu import normalize_htu
from fw.auth.dpop.nonces import NonceIssuer
from fw.auth.dpop.proof import PROOF_TYPE, ProofRules, ProofVerifier, VerifiedProof, token_hash
from fw.auth.dpop.replay import SeenProofs

__all__ = [
    "PROOF_TYPE",
    "DpopError",
    "DpopRejected",
    "NonceIssuer",
    "ProofRules",
    "ProofVerifier",
    "SeenProofs",
    "VerifiedProof",
    "normalize_htu",
    "token_hash",
]
