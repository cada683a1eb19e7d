"""Signature checks on ``cryptography`` key objects, prepared once per (key, algorithm).

joserfc imports the issuer's JWKs (:mod:`fw.auth.tokens.jwks`); verifying a signature is then
one call into ``cryptography``. Going to the key object directly, with the padding and hash
objects built once, removes what a general JOSE library does on every call (operation-key
lookup, hash and padding construction, algorithm registry) from the path every bearer request
takes. The algorithms are exactly those of :data:`fw.auth.tokens.algorithms.ALGORITHMS`, with
the parameters RFC 7518 fixes for each: PKCS#1 v1.5, PSS with MGF1 and a salt as long as the
hash, ECDSA with the raw ``r || s`` signature of JWS, and Ed25519.
"""

from __future__ import annotations

from collections.abc import Callable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from fw.auth.tokens.algorithms import Key

#: ``check(signing_input, signature)``: True when the signature verifies.
SignatureCheck = Callable[[bytes, bytes], bool]

_HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "256": hashes.SHA256,
    "384": hashes.SHA384,
    "512": hashes.SHA512,
}


def prepare(key: Key, alg: str) -> SignatureCheck:
    """The check for signatures made with ``alg`` by ``key``'s private half.

    The caller has already established that the key fits the algorithm
    (:func:`fw.auth.tokens.algorithms.fits`); a key object of another kind is a ``TypeError``.
    """
    public = key.get_op_key("verify")
    if alg.startswith(("RS", "PS")):
        if not isinstance(public, rsa.RSAPublicKey):
            raise TypeError(f"{alg} needs an RSA public key")
        digest = _HASHES[alg[2:]]()
        pad: padding.AsymmetricPadding = (
            padding.PKCS1v15()
            if alg.startswith("RS")
            else padding.PSS(mgf=padding.MGF1(_HASHES[alg[2:]]()), salt_length=digest.digest_size)
        )
        return _rsa(public, pad, digest)
    if alg.startswith("ES"):
        if not isinstance(public, ec.EllipticCurvePublicKey):
            raise TypeError(f"{alg} needs an EC public key")
        return _ecdsa(public, ec.ECDSA(_HASHES[alg[2:]]()), (public.curve.key_size + 7) // 8)
    if alg in ("EdDSA", "Ed25519"):
        if not isinstance(public, ed25519.Ed25519PublicKey):
            raise TypeError(f"{alg} needs an Ed25519 public key")
        return _eddsa(public)
    raise TypeError(f"no signature check for {alg}")


def _rsa(
    public: rsa.RSAPublicKey, pad: padding.AsymmetricPadding, digest: hashes.HashAlgorithm
) -> SignatureCheck:
    def check(signing_input: bytes, signature: bytes) -> bool:
        try:
            public.verify(signature, signing_input, pad, digest)
        except InvalidSignature:
            return False
        return True

    return check


def _ecdsa(public: ec.EllipticCurvePublicKey, scheme: ec.ECDSA, length: int) -> SignatureCheck:
    def check(signing_input: bytes, signature: bytes) -> bool:
        # JWS carries r || s, each as long as the curve's order (RFC 7518 3.4); X.509 wants DER.
        if len(signature) != 2 * length:
            return False
        r = int.from_bytes(signature[:length], "big")
        s = int.from_bytes(signature[length:], "big")
        try:
            public.verify(encode_dss_signature(r, s), signing_input, scheme)
        except InvalidSignature:
            return False
        return True

    return check


def _eddsa(public: ed25519.Ed25519PublicKey) -> SignatureCheck:
    def check(signing_input: bytes, signature: bytes) -> bool:
        try:
            public.verify(signature, signing_input)
        except InvalidSignature:
            return False
        return True

    return check
