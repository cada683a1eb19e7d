"""A local token issuer for testing bearer APIs: discovery, JWKS and token minting on loopback.

It is a real HTTP server (Starlette under uvicorn, on a free ``127.0.0.1`` port, in a
background thread), so the application under test discovers and fetches keys exactly as it
would from its production issuer::

    from fw.testing.issuer import LocalIssuer

    with LocalIssuer() as issuer:
        token = issuer.mint("user-1", audience="orders-api", scope="orders.read")
        # configure auth.jwt.issuer = issuer.url, allow_loopback_http = true
        issuer.rotate()   # new signing key; the app picks it up without a restart
"""

from __future__ import annotations

import collections
import socket
import time
import uuid
from collections.abc import Mapping
from datetime import timedelta
from types import TracebackType
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from fw.background import BackgroundServer
from fw.responses import JSONResponse

SigningKey = RSAKey | ECKey | OKPKey


def generate_key(algorithm: str, kid: str) -> SigningKey:
    """A fresh signing key for ``algorithm`` (RS*/PS* RSA-2048, ES256/384/512, EdDSA)."""
    parameters: Any = {"kid": kid, "use": "sig", "alg": algorithm}
    if algorithm.startswith(("RS", "PS")):
        return RSAKey.generate_key(2048, parameters=parameters)
    curves = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}
    if algorithm in curves:
        return ECKey.generate_key(curves[algorithm], parameters=parameters)
    if algorithm in ("EdDSA", "Ed25519"):
        return OKPKey.generate_key("Ed25519", parameters=parameters)
    raise ValueError(f"LocalIssuer cannot sign with {algorithm}")


class LocalIssuer:
    """An issuer on ``http://127.0.0.1:<port><path>`` that mints access tokens (``typ: at+jwt``).

    ``requests`` counts hits per path (to assert how often keys were fetched); ``available``
    set to false makes every endpoint answer 503, as an issuer in an outage would.
    """

    def __init__(self, *, algorithm: str = "RS256", path: str = "") -> None:
        self.algorithm = algorithm
        self.path = path.rstrip("/")
        self.keys: list[SigningKey] = [generate_key(algorithm, self._new_kid())]
        self.published: list[SigningKey] = list(self.keys)
        self.requests: collections.Counter[str] = collections.Counter()
        self.available = True
        self._server: BackgroundServer | None = None
        self.port = 0

    @staticmethod
    def _new_kid() -> str:
        return uuid.uuid4().hex[:16]

    # Addresses.
    @property
    def url(self) -> str:
        """The issuer identifier (``iss``)."""
        return f"http://127.0.0.1:{self.port}{self.path}"

    @property
    def jwks_uri(self) -> str:
        return f"{self.url}/jwks.json"

    @property
    def signing_key(self) -> SigningKey:
        return self.keys[-1]

    # Keys.
    def rotate(self, *, keep_previous: bool = True) -> str:
        """Sign with a new key from now on; the old one stays published unless told otherwise."""
        key = generate_key(self.algorithm, self._new_kid())
        self.keys.append(key)
        self.published = [*self.published, key] if keep_previous else [key]
        return str(key.kid)

    def jwks(self) -> dict[str, Any]:
        return {"keys": [key.as_dict(private=False) for key in self.published]}

    # Tokens.
    def mint(
        self,
        subject: str = "user-1",
        *,
        audience: str | list[str] = "api",
        scope: str | None = None,
        lifetime: timedelta = timedelta(minutes=5),
        issued_at: float | None = None,
        token_id: str | None = "",
        token_type: str | None = "at+jwt",
        claims: Mapping[str, Any] | None = None,
        header: Mapping[str, Any] | None = None,
        key: SigningKey | None = None,
    ) -> str:
        """A signed access token. ``token_id=""`` draws a random ``jti``; ``None`` leaves it out.

        ``claims`` and ``header`` are merged last, so a test can shape any malformed variant
        (a value ``None`` removes the member).
        """
        now = time.time() if issued_at is None else issued_at
        body: dict[str, Any] = {
            "iss": self.url,
            "sub": subject,
            "aud": audience,
            "iat": int(now),
            "exp": int(now + lifetime.total_seconds()),
            "client_id": "fw-local-issuer",
        }
        if token_id is not None:
            body["jti"] = token_id or uuid.uuid4().hex
        if scope is not None:
            body["scope"] = scope
        body.update(claims or {})
        signing = key or self.signing_key
        head: dict[str, Any] = {"alg": self.algorithm, "kid": signing.kid}
        if token_type is not None:
            head["typ"] = token_type
        head.update(header or {})
        body = {k: v for k, v in body.items() if v is not None}
        head = {k: v for k, v in head.items() if v is not None}
        return jwt.encode(head, body, signing, algorithms=[str(head.get("alg", self.algorithm))])

    # HTTP.
    def _app(self) -> Starlette:
        async def openid(request: Request) -> Response:
            return self._answer(request, self._metadata())

        async def oauth(request: Request) -> Response:
            return self._answer(request, self._metadata())

        async def keys(request: Request) -> Response:
            return self._answer(request, self.jwks())

        return Starlette(
            routes=[
                Route(f"{self.path}/.well-known/openid-configuration", openid),
                Route(f"/.well-known/oauth-authorization-server{self.path}", oauth),
                Route(f"{self.path}/jwks.json", keys),
            ]
        )

    def _metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "jwks_uri": self.jwks_uri,
            "token_endpoint": f"{self.url}/token",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [self.algorithm],
            "grant_types_supported": ["client_credentials"],
        }

    def _answer(self, request: Request, body: dict[str, Any]) -> Response:
        self.requests[request.url.path] += 1
        if not self.available:
            return JSONResponse({"error": "temporarily_unavailable"}, status_code=503)
        return JSONResponse(body)

    def start(self) -> LocalIssuer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self._server = BackgroundServer(
            self._app(), sock, what="the local issuer", name="fw-test-issuer", access_log=False
        )
        self._server.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None

    def __enter__(self) -> LocalIssuer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
