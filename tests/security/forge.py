"""Hand-made compact tokens: any header and payload bytes, any signature, any key form.

A JOSE library refuses to produce most shapes an attacker sends (``alg: none`` spelled oddly,
duplicate members, an HMAC keyed with an RSA public key), so these are assembled here from
bytes and signed with ``cryptography`` directly.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

from fw.testing.issuer import SigningKey

Part = dict[str, Any] | bytes


def b64(data: Part) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def signing_input(header: Part, payload: Part) -> bytes:
    return f"{b64(header)}.{b64(payload)}".encode()


def assemble(header: Part, payload: Part, signature: bytes = b"") -> str:
    return f"{signing_input(header, payload).decode()}.{b64(signature) if signature else ''}"


def signed(key: SigningKey, header: Part, payload: Part) -> str:
    """Signed with ``key``'s private half: RS256 for RSA, ES256 (raw r||s) for P-256."""
    text = signing_input(header, payload)
    private = key.private_key
    if isinstance(private, rsa.RSAPrivateKey):
        signature = private.sign(text, padding.PKCS1v15(), hashes.SHA256())
    elif isinstance(private, ec.EllipticCurvePrivateKey):
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        r, s = decode_dss_signature(private.sign(text, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        raise TypeError(f"cannot sign with {type(private).__name__}")
    return f"{text.decode()}.{b64(signature)}"


_HMAC = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}


def hmac_signed(secret: bytes, alg: str, header: Part, payload: Part) -> str:
    text = signing_input(header, payload)
    return f"{text.decode()}.{b64(hmac.new(secret, text, _HMAC[alg]).digest())}"


def public_key_forms(key: SigningKey) -> dict[str, bytes]:
    """Every form a published public key can be written in, as an attacker's HMAC secret."""
    public = key.public_key
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    forms = {
        "pem": public.public_bytes(serialization.Encoding.PEM, spki),
        "der": public.public_bytes(serialization.Encoding.DER, spki),
        "jwk": json.dumps(key.as_dict(private=False)).encode(),
        "jwk-sorted-compact": json.dumps(
            key.as_dict(private=False), sort_keys=True, separators=(",", ":")
        ).encode(),
    }
    if isinstance(public, rsa.RSAPublicKey):
        pkcs1 = serialization.PublicFormat.PKCS1
        forms["pem-pkcs1"] = public.public_bytes(serialization.Encoding.PEM, pkcs1)
        forms["der-pkcs1"] = public.public_bytes(serialization.Encoding.DER, pkcs1)
        forms["jwk-n"] = str(key.as_dict(private=False)["n"]).encode()
    return forms


# Alike in shape to naming_issuer.py's certificate: this one is the attacker's own, on purpose apart.
def self_signed_certificate(key: SigningKey) -> bytes:
    """A DER certificate for ``key`` (for an ``x5c`` header an attacker embeds)."""
    import datetime

    from cryptography import x509
    from cryptography.x509.oid import NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "attacker")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key.private_key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.DER)
