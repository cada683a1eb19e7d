"""The ``jwt_only`` extension: the bearer middleware plus the startup that makes it safe.

Startup loads the issuer's signing keys (discovery, JWKS) and, when revocation, the
``registered`` admission or DPoP's replay record needs it (:func:`store_records`), opens the
``auth.backend`` store and checks it is ready. Any failure refuses the start, cleanly: nothing
stays open. No endpoints, no session, no cookie, no CSRF: authority arrives in the
``Authorization`` header.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import httpx2

import fw.auth.runtime as runtime
from fw.auth.accounts import AccountSeams, ClaimIsTheAccount
from fw.auth.admission import build as build_admission
from fw.auth.dpop import NonceIssuer, ProofRules, ProofVerifier
from fw.auth.jwt.verifier import Policy, Verifier
from fw.auth.modes.jwt_only.dpop import DpopGate
from fw.auth.modes.jwt_only.middleware import BearerMiddleware, Running
from fw.auth.modes.jwt_only.settings import store_records
from fw.auth.probes import Pacing, jwks_probe, store_probes
from fw.auth.protection import Protection
from fw.auth.revocation import RevocationCheck
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import AuthStore
from fw.auth.stores.select import open_auth_store, store_settings
from fw.auth.tokens.algorithms import ALGORITHMS
from fw.auth.tokens.discovery import IssuerDiscovery
from fw.auth.tokens.errors import DiscoveryError
from fw.auth.tokens.fetch import fetch_json
from fw.auth.tokens.jwks import JwksCache, Locate
from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute
from fw.errors import StartupError
from fw.extension import Probe, public_paths

if TYPE_CHECKING:
    from fw.auth.settings import AuthSettings
    from fw.auth.stores.engine import StoreSettings

logger = logging.getLogger("fw.auth.jwt")


class JwtOnly:
    """The ``jwt_only`` extension: a middleware plus the startup checks that make it safe."""

    def __init__(
        self,
        auth: AuthSettings,
        middleware: StoreSettings,
        *,
        app: object | None = None,
        jwks_refetch_cooldown: float = 30.0,
        lookup: Callable[[type[Any]], Any] | None = None,
    ) -> None:
        self.app = app
        #: Reads a registered settings table, for a store engine defined outside fw.
        self.lookup = lookup
        self.auth = auth
        self.jwt = auth.jwt
        #: Where the ``auth.backend`` store lives, resolved by the auth factory.
        self.store_settings = middleware
        self.jwks_refetch_cooldown = jwks_refetch_cooldown
        # The paths the pillars declare public (health probes, the metrics scrape) carry no token:
        # exempt exactly, whatever is included.
        exclude = [*auth.protection.exclude, *public_paths(app)]
        self.protection = Protection.from_patterns(auth.protection.include, exclude)
        self.running: Running | None = None
        self.jwks: JwksCache | None = None
        #: How often readiness may fetch the keys again (:mod:`fw.auth.probes`).
        self.pacing = Pacing()
        self._http: httpx2.AsyncClient | None = None
        self._store: AuthStore | None = None
        self._lent: runtime.RunningAuth | None = None
        # The authorization server owns the accounts: without a resolver, the claim is the account.
        self.accounts = AccountSeams(app, ClaimIsTheAccount())

    def routes(self) -> Sequence[BaseRoute]:
        return ()

    def middleware(self) -> Sequence[Middleware]:
        return [BearerMiddleware(lambda: self.running, self.jwt.identity_claim, self.accounts)]

    def readiness_probes(self) -> list[Probe]:
        """Readiness (:class:`fw.extension.Ready`): the ``auth.backend`` store, when opened, and
        the issuer's signing keys."""
        return [*store_probes(self._store), jwks_probe(self._started_keys, self.pacing)]

    def _started_keys(self) -> JwksCache | None:
        return self.jwks if self.running is not None else None

    @property
    def needs_store(self) -> bool:
        return bool(store_records(self.jwt))

    async def _dpop_gate(self) -> DpopGate | None:
        """``auth.jwt.dpop``: proofs with any asymmetric algorithm fw knows, the replay record
        shared through the ``auth.backend`` store (which DPoP opens), nonces when asked for."""
        if self.jwt.dpop == "off":
            return None
        store = self._store
        assert store is not None, "store_records() asks for the store whenever DPoP is on"
        return DpopGate(
            "required" if self.jwt.dpop == "required" else "allowed",
            ProofVerifier(ProofRules(algorithms=tuple(ALGORITHMS))),
            self.protection,
            shared=store.ceremonies,
            nonces=NonceIssuer(await self._nonce_key(store)) if self.jwt.dpop_nonce else None,
        )

    @staticmethod
    async def _nonce_key(store: AuthStore) -> bytes:
        """The DPoP nonce key every process sharing the ``auth.backend`` store agrees on (derived
        from the store's shared key, never that key itself)."""
        try:
            shared = await store.sessions().shared_key()
        except StoreUnavailable as failure:
            raise StartupError(
                "auth.jwt.dpop_nonce", True, f"the auth.backend store cannot share the nonce key: {failure}"
            ) from None
        return hmac.new(shared, b"fw:dpop-nonce", hashlib.sha256).digest()

    async def startup(self) -> None:
        """Fetch the issuer's keys and open the store; any failure refuses the start, cleanly."""
        try:
            keys = await self._load_keys()
            check = await self._open_store() if self.needs_store else None
            gate = await self._dpop_gate()
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
            verifier=Verifier(
                policy,
                keys.key_for,
                fresh_key=keys.fresh_key,
                cache_size=jwt.token_cache_size,
                key_version=keys.version,
            ),
            admission=build_admission(jwt, self._store.allowlist if self._store else None),
            revocation=check,
            protection=self.protection,
            dpop=gate,
        )

    def _store_setting(self) -> tuple[str, str]:
        """The key (and its printable value) naming where the ``auth.backend`` store lives."""
        if self.auth.backend == "rdb":
            # Imported here: fw.rdb loads SQLAlchemy, which a store on another backend never needs.
            from fw.auth.stores.engines.rdb import RdbSettings
            from fw.rdb.engine import describe_dsn

            return "middleware.rdb.dsn", describe_dsn(self.store_settings.table(RdbSettings).dsn)
        return "auth.backend", self.auth.backend

    async def _load_keys(self) -> JwksCache:
        """The key cache, loaded. With discovery, each key fetch asks the issuer's metadata where
        the keys are: the document is checked whole (every endpoint it names passes the issuer's
        URL rule), kept for a while, and fetched again after that or after a failed key fetch."""
        jwt = self.jwt
        http = self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(5.0), follow_redirects=False)
        location: str | Locate = jwt.jwks_uri  # discovery = manual: checked by the startup rules
        discovery: IssuerDiscovery | None = None
        if jwt.discovery != "manual":
            discovery = IssuerDiscovery(
                partial(fetch_json, http),
                jwt.issuer,
                jwt.discovery,
                allow_loopback_http=jwt.allow_loopback_http,
            )
            location = discovery.jwks_uri
        self.jwks = JwksCache(
            location,
            http,
            refetch_cooldown=self.jwks_refetch_cooldown,
            on_failure=discovery.expire if discovery is not None else None,
        )
        try:
            await self.jwks.refresh()
        except DiscoveryError as error:
            raise StartupError(
                "auth.jwt.issuer", jwt.issuer, f"the issuer's signing keys cannot be loaded: {error}"
            ) from None
        return self.jwks

    async def _open_store(self) -> RevocationCheck | None:
        """Open the ``auth.backend`` store, check it, and build the revocation check."""
        jwt = self.jwt
        self._store = store = await open_auth_store(
            self.auth.backend, store_settings(self.store_settings, lookup=self.lookup), store_records(jwt)
        )
        check = None
        if jwt.revocation.mode != "off":
            check = RevocationCheck(
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
                key, value = self._store_setting()
                raise StartupError(key, value, f"the revocation entries cannot be used: {failure}") from None
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
