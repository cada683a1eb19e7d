"""A DPoP client for tests: a key pair and the proofs it signs, minted with joserfc."""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from typing import Any

from joserfc import jws
from joserfc.jwk import ECKey, OKPKey, RSAKey

Key = ECKey | RSAKey | OKPKey


def new_key(alg: str = "ES256") -> Key:
    if alg.startswith(("RS", "PS")):
        return RSAKey.generate_key(2048)
    if alg == "EdDSA":
        return OKPKey.generate_key("Ed25519")
    return ECKey.generate_key({"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}[alg])


def ath(token: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()


class DpopClient:
    """Signs proofs with one key; ``jkt`` is the thumbprint an authorization server binds to."""

    def __init__(self, alg: str = "ES256") -> None:
        self.alg = alg
        self.key = new_key(alg)

    @property
    def jkt(self) -> str:
        return str(self.key.thumbprint())

    def proof(
        self,
        method: str,
        url: str,
        token: str | None = None,
        *,
        nonce: str | None = None,
        iat: float | None = None,
        jti: str | None = None,
        claims: dict[str, Any] | None = None,
        header: dict[str, Any] | None = None,
    ) -> str:
        """A proof for ``method url`` (bound to ``token`` by ``ath``); entries set to ``None`` removed."""
        body: dict[str, Any] = {
            "jti": jti or uuid.uuid4().hex,
            "htm": method,
            "htu": url,
            "iat": int(time.time() if iat is None else iat),
        }
        if token is not None:
            body["ath"] = ath(token)
        if nonce is not None:
            body["nonce"] = nonce
        body.update(claims or {})
        head: dict[str, Any] = {"typ": "dpop+jwt", "alg": self.alg, "jwk": self.key.as_dict(private=False)}
        head.update(header or {})
        body = {k: v for k, v in body.items() if v is not None}
        head = {k: v for k, v in head.items() if v is not None}
        payload = json.dumps(body, separators=(",", ":")).encode()
        return jws.serialize_compact(head, payload, self.key, algorithms=[str(head["alg"])])


def forged(header: dict[str, Any], claims: dict[str, Any]) -> str:
    """A compact JWS no key signed (its signature is random bytes): for algorithm mix-ups."""

    def part(value: bytes) -> str:
        return base64.urlsafe_b64encode(value).rstrip(b"=").decode()

    encoded = [part(json.dumps(x).encode()) for x in (header, claims)]
    return ".".join([*encoded, part(uuid.uuid4().bytes * 4)])
