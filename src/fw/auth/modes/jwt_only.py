"""``auth.mode = "jwt_only"``: every request's bearer access token is verified before the handler.

Composition only: discovery, the JWKS cache and the verifier come from :mod:`fw.auth.jwt`,
admission and revocation from their modules, path rules from :mod:`fw.auth.protection`.
No endpoints, no session, no cookie, no CSRF: authority arrives in the ``Authorization`` header.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx
from starlette.middleware import Middleware
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fw.auth import admission as admission_policies
from fw.auth import revocation, runtime
from fw.auth.accounts import AccountSeams, ClaimIsTheAccount, Identity
from fw.auth.caller import Authentication, Caller, record
from fw.auth.jwt.discovery import Discovery, DiscoveryError, jwks_uri_for
from fw.auth.jwt.jwks import JwksCache
from fw.auth.jwt.verifier import MAX_TOKEN_BYTES, Policy, TokenRejected, Verifier
from fw.auth.protection import Protection
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import AuthStore
from fw.auth.stores.records import RecordKind
from fw.auth.stores.select import check_auth_backend, open_auth_store
from fw.errors import StartupError
from fw.problems import Problem
from fw.rdb.engine import describe_dsn

if TYPE_CHECKING:
    from fw.app import App, Extension
    from fw.settings import AuthSettings

logger = logging.getLogger("fw.auth.jwt")

_UNAUTHORIZED = Problem(status=401, code="unauthorized", headers={"WWW-Authenticate": "Bearer"})
_UNAVAILABLE = StoreUnavailable()


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

    def __init__(
        self,
        auth: AuthSettings,
        rdb_dsn: str,
        *,
        app: object | None = None,
        jwks_refetch_cooldown: float = 30.0,
    ) -> None:
        self.app = app
        self.auth = auth
        self.jwt = auth.jwt
        self.rdb_dsn = rdb_dsn
        self.jwks_refetch_cooldown = jwks_refetch_cooldown
        self.protection = Protection.from_patterns(auth.protection.include, auth.protection.exclude)
        self.running: _Running | None = None
        self.jwks: JwksCache | None = None
        self._http: httpx.AsyncClient | None = None
        self._store: AuthStore | None = None
        self._lent: runtime.RunningAuth | None = None
        self.accounts = AccountSeams(app, ClaimIsTheAccount())

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
            check_auth_backend(self.auth.backend)
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
            admission=admission_policies.build(jwt, self._store.allowlist if self._store else None),
            revocation=check,
            protection=self.protection,
        )

    async def _load_keys(self) -> JwksCache:
        jwt = self.jwt
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(5.0), follow_redirects=False)
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
        """Open the ``auth.backend`` store, check it, and build the revocation check."""
        jwt = self.jwt
        kinds: list[RecordKind] = []
        if jwt.revocation.mode != "off":
            kinds.append("revocations")
        if jwt.admission == "registered":
            kinds.append("allowlist")
        self._store = store = await open_auth_store(self.auth.backend, self.rdb_dsn, kinds)
        check = None
        if jwt.revocation.mode != "off":
            check = revocation.RevocationCheck(
                store.revocations,
                jwt.revocation.mode,
                on_unavailable=jwt.revocation.on_unavailable,
                max_propagation_delay=jwt.revocation.max_propagation_delay,
            )
            if jwt.revocation.on_unavailable == "admit":
                logger.error(
                    "auth.jwt.revocation.on_unavailable = admit: revoked tokens pass while the store is down"
                )
            try:
                await store.revocations.clean()
            except StoreUnavailable as failure:
                raise StartupError(
                    "middleware.rdb.dsn",
                    describe_dsn(self.rdb_dsn),
                    f"the revocation table cannot be used: {failure}",
                ) from None
        self._lent = runtime.RunningAuth(self.app, store, self.auth)
        if check is not None:
            self._lent.revocations_changed = check.forget
        runtime.start(self._lent)
        return check

    async def shutdown(self) -> None:
        self.running = None
        if self._lent is not None:
            runtime.stop(self._lent)
            self._lent = None
        if self._store is not None:
            await self._store.close()
            self._store = None
        if self.jwks is not None:
            await self.jwks.close()
        if self._http is not None:
            await self._http.aclose()
            self._http = None


def extension(app: App, auth: AuthSettings, rdb_dsn: str) -> Extension:
    """The plugin's entry point for this mode."""
    return JwtOnly(auth, rdb_dsn, app=app)


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
            account = await self.extension.accounts.resolve(identity)
        except StoreUnavailable as failure:
            logger.error("account resolver unavailable: %s", failure)
            return failure
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
