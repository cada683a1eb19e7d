"""Which algorithms fw accepts and which key type each one must be verified with.

Only asymmetric algorithms exist here: fw verifies access tokens and ID tokens with keys the
issuer publishes, so an HMAC algorithm would turn a public key into a shared secret, and
``none`` is no signature.
"""

from __future__ import annotations

from joserfc.jwk import ECKey, OKPKey, RSAKey

Key = RSAKey | ECKey | OKPKey

#: algorithm -> (key type, curve or None)
ALGORITHMS: dict[str, tuple[str, str | None]] = {
    "RS256": ("RSA", None),
    "RS384": ("RSA", None),
    "RS512": ("RSA", None),
    "PS256": ("RSA", None),
    "PS384": ("RSA", None),
    "PS512": ("RSA", None),
    "ES256": ("EC", "P-256"),
    "ES384": ("EC", "P-384"),
    "ES512": ("EC", "P-521"),
    "EdDSA": ("OKP", "Ed25519"),
    "Ed25519": ("OKP", "Ed25519"),
}


def fits(key: Key, alg: str) -> bool:
    """True when ``key`` may verify a signature made with ``alg`` (type, curve and declared alg)."""
    wanted = ALGORITHMS.get(alg)
    if wanted is None:
        return False
    kty, curve = wanted
    if key.key_type != kty:
        return False
    if curve is not None and key.get("crv") != curve:
        return False
    declared = key.get("alg")
    return declared is None or declared == alg


def algorithm_problem(alg: str) -> str | None:
    """Why ``alg`` cannot be on the allow-list, or ``None``."""
    if alg in ALGORITHMS:
        return None
    if alg.lower() == "none":
        return "'none' means no signature and is never accepted"
    if alg.upper().startswith("HS"):
        return (
            "symmetric (HMAC) algorithms need a shared secret; "
            "bearer tokens are verified with the issuer's public keys"
        )
    return f"unknown algorithm; use one of {', '.join(ALGORITHMS)}"
