"""The ``jwt_only`` extension: the bearer middleware plus the startup that makes it safe.

Startup loads the issuer's signing keys (discovery, JWKS) and, when revocation or the
``registered`` admission needs it, opens ``[middleware.rdb]`` and checks its tables. Any failure
refuses the start, cleanly: nothing stays open. No endpoints, no session, no cookie, no CSRF:
authority arrives in the ``Authorization`` header.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import httpx2
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from fw.auth.admission import build as build_admission
from fw.auth.jwt.verifier import Policy, Verifier
from fw.auth.modes.jwt_only.middleware import BearerMiddleware, Running
from fw.auth.protection import Protection
from fw.auth.revocation import RevocationCheck, RevocationStore, activate, deactivate
from fw.auth.tokens.discovery import Discovery, jwks_uri_for
from fw.auth.tokens.errors import DiscoveryError
from fw.auth.tokens.jwks import JwksCache
from fw.errors import StartupError
from fw.rdb import runtime as rdb_runtime
from fw.rdb.engine import StoreUnavailable, create_engine, describe_dsn, require_tables

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from fw.settings import AuthSettings

logger = logging.getLogger("fw.auth.jwt")


class JwtOnly:
    """The ``jwt_only`` extension: a middleware plus the startup checks that make it safe."""

    def __init__(self, auth: AuthSettings, rdb_dsn: str, *, jwks_refetch_cooldown: float = 30.0) -> None:
        self.auth = auth
        self.jwt = auth.jwt
        self.rdb_dsn = rdb_dsn
        self.jwks_refetch_cooldown = jwks_refetch_cooldown
        self.protection = Protection.from_patterns(auth.protection.include, auth.protection.exclude)
        self.running: Running | None = None
        self.jwks: JwksCache | None = None
        self._http: httpx2.AsyncClient | None = None
        self._engine: AsyncEngine | None = None
        self._store: RevocationStore | None = None

    def routes(self) -> Sequence[BaseRoute]:
        return ()

    def middleware(self) -> Sequence[Middleware]:
        return [
            Middleware(BearerMiddleware, running=lambda: self.running, identity_claim=self.jwt.identity_claim)
        ]

    @property
    def needs_store(self) -> bool:
        return self.jwt.revocation.mode != "off" or self.jwt.admission == "registered"

    async def startup(self) -> None:
        """Fetch the issuer's keys and open the store; any failure refuses the start, cleanly."""
        try:
            keys = await self._load_keys()
            check = await self._open_store() if self.needs_store else None
        except BaseException:
            await self.shutdown()
            raise
        jwt = self.jwt
        policy = Policy(
            issuer=jwt.issuer,
            audiences=frozenset(jwt.audience),
            algorithms=tuple(jwt.algorithms),
            max_token_lifetime=jwt.max_token_lifetime,
            identity_claim=jwt.identity_claim,
            required_token_type=jwt.required_token_type,
            required_scopes=frozenset(jwt.required_scopes),
        )
        self.running = Running(
            verifier=Verifier(policy, keys.key_for),
            admission=build_admission(jwt, self._engine),
            revocation=check,
            protection=self.protection,
        )

    async def _load_keys(self) -> JwksCache:
        jwt = self.jwt
        self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(5.0), follow_redirects=False)
        discovery: Discovery = (
            "oauth" if jwt.discovery == "oauth" else "manual" if jwt.discovery == "manual" else "oidc"
        )
        try:
            uri = await jwks_uri_for(
                self._http,
                jwt.issuer,
                discovery,
                jwks_uri=jwt.jwks_uri,
                allow_loopback_http=jwt.allow_loopback_http,
            )
            self.jwks = JwksCache(uri, self._http, refetch_cooldown=self.jwks_refetch_cooldown)
            await self.jwks.refresh()
        except DiscoveryError as error:
            raise StartupError(
                "auth.jwt.issuer", jwt.issuer, f"the issuer's signing keys cannot be loaded: {error}"
            ) from None
        return self.jwks

    async def _open_store(self) -> RevocationCheck | None:
        """Connect to ``[middleware.rdb]``, check the tables, and build the revocation check."""
        jwt = self.jwt
        tables = []
        if jwt.revocation.mode != "off":
            tables.append("fw_revocations")
        if jwt.admission == "registered":
            tables.append("fw_allowlist")
        self._engine = create_engine(self.rdb_dsn)
        await require_tables(self._engine, self.rdb_dsn, tables)
        rdb_runtime.register(self._engine)
        self._store = RevocationStore(self._engine, jwt.max_token_lifetime)
        check = None
        if jwt.revocation.mode != "off":
            check = RevocationCheck(
                self._store,
                jwt.revocation.mode,
                on_unavailable=jwt.revocation.on_unavailable,
                max_propagation_delay=jwt.revocation.max_propagation_delay,
            )
            if jwt.revocation.on_unavailable == "admit":
                logger.error(
                    "auth.jwt.revocation.on_unavailable = admit: revoked tokens pass while the store is down"
                )
            try:
                await self._store.clean()
            except StoreUnavailable as failure:
                raise StartupError(
                    "middleware.rdb.dsn",
                    describe_dsn(self.rdb_dsn),
                    f"the revocation table cannot be used: {failure}",
                ) from None
        activate(self._store, check)
        return check

    async def shutdown(self) -> None:
        self.running = None
        if self._store is not None:
            deactivate(self._store)
            self._store = None
        if self._engine is not None:
            rdb_runtime.unregister(self._engine)
            await self._engine.dispose()
            self._engine = None
        if self.jwks is not None:
            await self.jwks.close()
        if self._http is not None:
            await self._http.aclose()
            self._http = None
