"""Servers for the bearer benchmarks: the fw jwt_only App and two hand-built equivalents.

``python benchmarks/jwt_servers.py fw|starlette|fastapi '<json>'`` serves ``GET /api/me`` on
127.0.0.1 at the given port. The Starlette + joserfc app and the FastAPI + PyJWT app perform the
same checks fw does (algorithm allow-list, signature, iss, aud, exp, iat, sub, typ, lifetime,
scope) and, when asked, the same revocation query on the same table through an engine with fw's
settings (``fw.rdb.engine.create_engine``: the same connection pool), so the comparison is like
for like. fw runs with its defaults, the verified-token cache (``auth.jwt.token_cache_size``,
1024) included; ``"token_cache_size"`` in the options overrides it.
"""

import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jwt_config import jwt_only_toml

if TYPE_CHECKING:
    from starlette.responses import Response


def fw_app(options: dict[str, Any]) -> Any:
    """The jwt_only App, its configuration parsed (``options`` as for :func:`serve_fw`)."""
    from fw import configuration
    from fw.auth.settings import AuthSettings
    from fw.auth.stores.engines.rdb import RdbSettings
    from fw.settings import ServerSettings

    for cls, prefix in (
        (AuthSettings, "auth"),
        (RdbSettings, "middleware.rdb"),
        (ServerSettings, "server"),
    ):
        if not any(r.cls is cls for r in configuration.registry.state().configs.values()):
            configuration.register_config(cls, prefix)
    config = Path(options["workdir"]) / f"fw-{options['port']}.toml"
    server = f'\n[server]\nhost = "127.0.0.1"\nport = {options["port"]}\n'
    jwt = f'required_scopes = ["orders.read"]\ntoken_cache_size = {options.get("token_cache_size", 1024)}\n'
    config.write_text(
        server
        + jwt_only_toml(options["issuer"], revocation=options["revocation"], delay="0s", jwt=jwt)
        + f'\n[middleware.rdb]\ndsn = "{options["dsn"]}"\n'
    )
    app = bearer_app({"sub": "anonymous"})
    configuration.parse_config(["--config-path", str(config)])
    return app


def bearer_app(bare_answer: dict[str, str]) -> Any:
    """The App of the bearer benchmarks: ``GET /api/me`` answering the caller's account, and
    ``GET /hello``, a bare route in the same App (no token needed, answering ``bare_answer``), the
    yardstick of a bearer request."""
    import fw
    import fw.auth

    app = fw.App()

    @app.route("GET /api/me")
    async def me(request: fw.Request) -> fw.Response:
        caller = fw.auth.bearer(request)
        assert caller is not None
        return fw.JSONResponse({"sub": caller.account_id})

    @app.route("GET /hello")
    async def hello(request: fw.Request) -> fw.Response:
        return fw.JSONResponse(bare_answer)

    return app


def serve_fw(options: dict[str, Any]) -> None:
    import uvicorn

    from fw import configuration
    from fw.settings import ServerSettings

    app = fw_app(options)
    # What fw.run does, minus the access log (neither server logs each request here).
    server = configuration.config(ServerSettings)
    uvicorn.run(app, host=server.host, port=server.port, log_level="warning", access_log=False)


def serve_fastapi(options: dict[str, Any]) -> None:
    import contextlib

    import httpx2
    import jwt
    import uvicorn
    from fastapi import FastAPI, HTTPException, Request
    from sqlalchemy import and_, or_, select

    from fw.rdb.engine import create_engine
    from fw.rdb.tables import REVOCATIONS

    issuer = options["issuer"]
    revocation = options["revocation"] != "off"
    keys: dict[str, Any] = {}
    engine = create_engine(options["dsn"]) if revocation else None

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> Any:
        async with httpx2.AsyncClient() as http:
            meta = (await http.get(f"{issuer}/.well-known/openid-configuration")).json()
            for jwk in (await http.get(meta["jwks_uri"])).json()["keys"]:
                keys[jwk["kid"]] = jwt.PyJWK(jwk).key
        yield

    app = FastAPI(lifespan=lifespan, openapi_url=None, docs_url=None, redoc_url=None)
    unauthorized = HTTPException(401, "Unauthorized", headers={"WWW-Authenticate": "Bearer"})

    async def verify(request: Request) -> dict[str, Any]:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise unauthorized
        try:
            head = jwt.get_unverified_header(token)
            key = keys.get(head.get("kid", ""))
            if key is None or str(head.get("typ", "")).lower().removeprefix("application/") != "at+jwt":
                raise unauthorized
            claims = jwt.decode(
                token,
                key,
                algorithms=["RS256"],
                audience="api",
                issuer=issuer,
                leeway=30,
                options={"require": ["exp", "iat", "sub", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            raise unauthorized from None
        if claims["exp"] - claims["iat"] > 3600 or "orders.read" not in str(claims.get("scope", "")).split():
            raise unauthorized
        if engine is not None:
            query = select(REVOCATIONS.c.kind, REVOCATIONS.c.stamp).where(
                REVOCATIONS.c.issuer == issuer,
                REVOCATIONS.c.expires_at > datetime.now(UTC),
                or_(
                    and_(REVOCATIONS.c.kind == "token", REVOCATIONS.c.key == claims.get("jti", "")),
                    and_(REVOCATIONS.c.kind == "subject", REVOCATIONS.c.key == claims["sub"]),
                ),
            )
            async with engine.connect() as conn:
                rows = (await conn.execute(query)).all()
            for kind, stamp in rows:
                if kind == "token" or claims["iat"] < stamp.timestamp():
                    raise unauthorized
        return claims

    @app.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        claims = await verify(request)
        return {"sub": claims["sub"]}

    uvicorn.run(app, host="127.0.0.1", port=options["port"], log_level="warning", access_log=False)


def revocation_query(dsn: str | None, issuer: str) -> Any:
    """The revocation read the peers share (the one fw's rdb store makes), or ``None`` when off."""
    if dsn is None:
        return None
    from sqlalchemy import and_, or_, select

    from fw.rdb.engine import create_engine
    from fw.rdb.tables import REVOCATIONS

    engine = create_engine(dsn)

    async def revoked(claims: dict[str, Any]) -> bool:
        query = select(REVOCATIONS.c.kind, REVOCATIONS.c.stamp).where(
            REVOCATIONS.c.issuer == issuer,
            REVOCATIONS.c.expires_at > datetime.now(UTC),
            or_(
                and_(REVOCATIONS.c.kind == "token", REVOCATIONS.c.key == claims.get("jti", "")),
                and_(REVOCATIONS.c.kind == "subject", REVOCATIONS.c.key == claims["sub"]),
            ),
        )
        async with engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return any(kind == "token" or claims["iat"] < stamp.timestamp() for kind, stamp in rows)

    return revoked


def joserfc_checks(issuer: str, keys: list[Any]) -> tuple[Callable[[Any], dict[str, Any] | None], "Response"]:
    """What the Starlette + joserfc app checks of a request's bearer token, fw's checks (algorithm,
    signature, iss, aud, exp, iat, sub, typ, lifetime, scope): a function from a Starlette
    ``Request`` to the token's claims (None when refused), and the 401 to answer a refusal.
    ``keys[0]`` is the issuer's key set, fetched before the first request."""
    from joserfc import jwt
    from joserfc.errors import JoseError
    from starlette.responses import Response

    rules = jwt.JWTClaimsRegistry(
        leeway=30,
        iss={"essential": True, "value": issuer},
        aud={"essential": True, "values": ["api"]},
        exp={"essential": True},
        iat={"essential": True},
        sub={"essential": True},
    )
    unauthorized = Response(
        b'{"detail":"Unauthorized"}',
        401,
        headers={"WWW-Authenticate": "Bearer"},
        media_type="application/json",
    )

    def claims_of(request: Any) -> dict[str, Any] | None:
        scheme, _, raw = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not raw:
            return None
        try:
            token = jwt.decode(raw, keys[0], algorithms=["RS256"])
            rules.validate(token.claims)
        except (JoseError, ValueError):
            return None
        claims = token.claims
        typ = str(token.header.get("typ", "")).lower().removeprefix("application/")
        if typ != "at+jwt" or claims["exp"] - claims["iat"] > 3600:
            return None
        if "orders.read" not in str(claims.get("scope", "")).split():
            return None
        return claims

    return claims_of, unauthorized


def serve_starlette(options: dict[str, Any]) -> None:
    """Starlette + joserfc: the hand-built app a Starlette user writes, doing fw's checks."""
    import contextlib

    import httpx2
    import uvicorn
    from joserfc.jwk import KeySet
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    issuer = options["issuer"]
    revoked = revocation_query(options["dsn"] if options["revocation"] != "off" else None, issuer)
    keys: list[KeySet] = []
    claims_of, unauthorized = joserfc_checks(issuer, keys)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> Any:
        async with httpx2.AsyncClient() as http:
            meta = (await http.get(f"{issuer}/.well-known/openid-configuration")).json()
            keys.append(KeySet.import_key_set((await http.get(meta["jwks_uri"])).json()))
        yield

    async def me(request: Request) -> Response:
        claims = claims_of(request)
        if claims is None:
            return unauthorized
        if revoked is not None and await revoked(claims):
            return unauthorized
        return JSONResponse({"sub": claims["sub"]})

    app = Starlette(routes=[Route("/api/me", me)], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=options["port"], log_level="warning", access_log=False)


def floor_app(issuer: str) -> Any:
    """The floor of a verified bearer request, not a peer: a raw ASGI callable that checks the RS256
    signature with ``cryptography`` and nothing else (no claim, no revocation, no framework). No
    server that verifies each token can answer faster on the same HTTP server."""
    import base64

    import httpx2
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    def b64(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    meta = httpx2.get(f"{issuer}/.well-known/openid-configuration").json()
    keys: dict[str, rsa.RSAPublicKey] = {}
    for jwk in httpx2.get(meta["jwks_uri"]).json()["keys"]:
        numbers = rsa.RSAPublicNumbers(int.from_bytes(b64(jwk["e"])), int.from_bytes(b64(jwk["n"])))
        keys[jwk["kid"]] = numbers.public_key()
    json_type = [(b"content-type", b"application/json")]
    reject = b'{"detail":"Unauthorized"}'
    pkcs1, sha256 = padding.PKCS1v15(), hashes.SHA256()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        status, body = 401, reject
        for name, value in scope["headers"]:
            if name == b"authorization":
                head, payload, signature = value[7:].decode().split(".")
                key = keys[json.loads(b64(head))["kid"]]
                try:
                    key.verify(b64(signature), f"{head}.{payload}".encode(), pkcs1, sha256)
                    status, body = 200, json.dumps({"sub": json.loads(b64(payload))["sub"]}).encode()
                except InvalidSignature:
                    pass
        await send({"type": "http.response.start", "status": status, "headers": json_type})
        await send({"type": "http.response.body", "body": body})

    return app


def serve_floor(options: dict[str, Any]) -> None:
    """:func:`floor_app` served by uvicorn."""
    import uvicorn

    app = floor_app(options["issuer"])
    uvicorn.run(app, host="127.0.0.1", port=options["port"], log_level="warning", access_log=False)


if __name__ == "__main__":
    kind, raw = sys.argv[1], sys.argv[2]
    servers = {"fw": serve_fw, "starlette": serve_starlette, "fastapi": serve_fastapi, "floor": serve_floor}
    servers[kind](json.loads(raw))
