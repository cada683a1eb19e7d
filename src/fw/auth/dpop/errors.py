"""Why a DPoP proof was refused, in the words RFC 9449 gives a client to act on."""

from __future__ import annotations

from typing import Literal

from fw.auth.tokens.errors import TokenRejected

#: ``invalid_dpop_proof``: the proof is wrong; ``use_dpop_nonce``: retry with the server's nonce;
#: ``invalid_token``: the access token is not bound the way it is presented.
DpopError = Literal["invalid_dpop_proof", "use_dpop_nonce", "invalid_token"]


class DpopRejected(TokenRejected):
    """A proof (or its binding to the access token) failed; ``error`` is the RFC 9449 error code."""

    def __init__(self, reason: str, error: DpopError = "invalid_dpop_proof") -> None:
        self.error: DpopError = error
        super().__init__(reason)
