"""``auth.mode = "jwt_only"``: every request's bearer access token is verified before the handler.

Composition only: discovery and the JWKS cache come from :mod:`fw.auth.tokens`, the verifier
from :mod:`fw.auth.jwt`, admission and revocation from their modules, path rules from
:mod:`fw.auth.protection`.
No endpoints, no session, no cookie, no CSRF: authority arrives in the ``Authorization`` header.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx2
from starlette.middleware import Middleware
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fw.auth import admission as admission_policies
from fw.auth import revocation
from fw.auth.accounts import Account, AccountStoreUnavailable, AccountTable, Identity, resolve_account
from fw.auth.caller import Authentication, Caller, record
from fw.auth.jwt.verifier import Policy, Verifier
from fw.auth.protection import Protection
from fw.auth.tokens.discovery import Discovery, jwks_uri_for
from fw.auth.tokens.errors import DiscoveryError, TokenRejected
from fw.auth.tokens.jwks import JwksCache
from fw.auth.tokens.jws import MAX_TOKEN_BYTES
from fw.errors import StartupError
from fw.problems import Problem
from fw.rdb import runtime as rdb_runtime
from fw.rdb.engine import StoreUnavailable, create_engine, describe_dsn, require_tables

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from fw.app import App, Extension
    from fw.settings import AuthSettings

logger = logging.getLogger("fw.auth.jwt")

_UNAUTHORIZED = Problem(status=401, code="unauthorized", headers={"WWW-Authenticate": "Bearer"})
_UNAVAILABLE = Problem(status=503, code="service_unavailable")


def _prebuilt(problem: Problem) -> tuple[Message, Message]:
    response = problem.response()
    start: Message = {
        "type": "http.response.start",
        "status": response.status_code,
        "headers": response.raw_headers,
    }
    body: Message = {"type": "http.response.body", "body": response.body}
    return start, body


_REJECT = _prebuilt(_UNAUTHORIZED)
_REFUSE = _prebuilt(_UNAVAILABLE)


@dataclass(slots=True)
class _Running:
    """Everything the middleware needs once startup succeeded."""

    verifier: Verifier
    admission: admission_policies.Admission
    revocation: revocation.RevocationCheck | None
    protection: Protection


class JwtOnly:
    """The ``jwt_only`` extension: a middleware plus the startup checks that make it safe."""

    def __init__(self, auth: AuthSettings, rdb_dsn: str, *, jwks_refetch_cooldown: float = 30.0) -> None:
        self.auth = auth
        self.jwt = auth.jwt
        self.rdb_dsn = rdb_dsn
        self.jwks_refetch_cooldown = jwks_refetch_cooldown
        self.protection = Protection.from_patterns(auth.protection.include, auth.protection.exclude)
        self.running: _Running | None = None
        self.jwks: JwksCache | None = None
        self._http: httpx2.AsyncClient | None = None
        self._engine: AsyncEngine | None = None
        self._store: revocation.RevocationStore | None = None

    def routes(self) -> Sequence[BaseRoute]:
        return ()

    def middleware(self) -> Sequence[Middleware]:
        return [Middleware(BearerMiddleware, extension=self)]

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
        self.running = _Running(
            verifier=Verifier(policy, keys.key_for),
            admission=admission_policies.build(jwt, self._engine),
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

    async def _open_store(self) -> revocation.RevocationCheck | None:
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
        self._store = revocation.RevocationStore(self._engine, jwt.max_token_lifetime)
        check = None
        if jwt.revocation.mode != "off":
            check = revocation.RevocationCheck(
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
        revocation.activate(self._store, check)
        return check

    async def shutdown(self) -> None:
        self.running = None
        if self._store is not None:
            revocation.deactivate(self._store)
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


def extension(app: App, auth: AuthSettings, rdb_dsn: str) -> Extension:
    """The plugin's entry point for this mode."""
    del app
    return JwtOnly(auth, rdb_dsn)


class _ClaimAccounts(AccountTable):
    """Without an application resolver the account is the identity claim's value.

    The authorization server owns the accounts in this mode, so fw keeps no table of its own;
    an application that maps callers to local accounts registers ``fw.auth.set_account_resolver``.
    """

    def __init__(self) -> None:  # no engine: nothing is stored
        pass

    async def resolve(self, identity: Identity) -> Account | None:
        return Account(identity.value, identity.display_name, identity.email)


_CLAIM_IS_THE_ACCOUNT = _ClaimAccounts()


def _authorization(scope: Scope) -> tuple[bool, str | None]:
    """(presented, token): no header or another scheme is anonymous; a bad Bearer is presented=None."""
    found: bytes | None = None
    for name, value in scope["headers"]:
        if name == b"authorization":
            if found is not None:
                return True, None  # two Authorization headers: ambiguous, refused
            found = value
    if found is None:
        return False, None
    # The scheme is case-insensitive and SP or HTAB may separate it from the token (RFC 9110).
    scheme, _, rest = found.replace(b"\t", b" ").strip(b" ").partition(b" ")
    if scheme.lower() != b"bearer":
        return False, None  # another scheme (Basic, DPoP...) is not this mode's business
    token = rest.strip(b" ")
    if not token or len(token) > MAX_TOKEN_BYTES or b" " in token or b"," in token:
        return True, None
    try:
        return True, token.decode("ascii")
    except UnicodeDecodeError:
        return True, None


class BearerMiddleware:
    """Verifies a presented bearer token on every path and demands one on protected paths."""

    def __init__(self, app: ASGIApp, extension: JwtOnly) -> None:
        self.app = app
        self.extension = extension
        self._claim = extension.jwt.identity_claim

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        running = self.extension.running
        if running is None:
            await self._answer(scope, send, _REFUSE)
            return
        presented, token = _authorization(scope)
        if presented:
            outcome = await self._authenticate(running, token)
            if outcome is None:
                await self._answer(scope, send, _REJECT)
                return
            if isinstance(outcome, Authentication):
                record(scope, outcome)
            else:
                await self._answer(scope, send, _REFUSE)
                return
        elif running.protection.requires_auth(scope["path"]):
            await self._answer(scope, send, _REJECT)
            return
        await self.app(scope, receive, send)

    async def _authenticate(
        self, running: _Running, token: str | None
    ) -> Authentication | StoreUnavailable | None:
        """The caller, ``None`` to reject with 401, or the store failure to answer 503."""
        if token is None:
            logger.debug("bearer rejected: malformed Authorization header")
            return None
        try:
            verified = await running.verifier.verify(token)
            if not await running.admission.admits(verified.issuer, verified.claims):
                logger.debug("bearer rejected: not admitted")
                return None
            if running.revocation is not None and await running.revocation.revoked(verified):
                logger.debug("bearer rejected: revoked")
                return None
        except TokenRejected as rejection:
            logger.debug("bearer rejected: %s", rejection.reason)
            return None
        except StoreUnavailable as failure:
            logger.error("auth store unavailable: %s", failure)
            return failure
        except Exception:
            logger.exception("bearer verification failed unexpectedly; rejecting the request")
            return None
        identity = Identity(verified.issuer, self._claim, verified.identity, verified.claims)
        try:
            account = await resolve_account(identity, _CLAIM_IS_THE_ACCOUNT)
        except AccountStoreUnavailable as failure:
            logger.error("account resolver unavailable: %s", failure)
            return StoreUnavailable(str(failure))
        if account is None or not account.active:
            logger.debug("bearer rejected: the account resolver refused the identity")
            return None
        caller = Caller(account.account_id, identity)
        return Authentication("bearer", account.account_id, verified.issuer, verified.identity, caller)

    @staticmethod
    async def _answer(scope: Scope, send: Send, response: tuple[Message, Message]) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send(response[0])
        await send(response[1])
