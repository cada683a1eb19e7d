"""The ``oidc_only`` extension: its startup, its endpoints and the browser session middleware.

Startup opens the ``auth.backend`` store (accounts, allow-list, and sessions when
``session.backend`` is ``rdb``), checks it is ready, opens the session store and reads the key
that seals login state; any failure refuses the start with nothing left open. The provider is
contacted at the first sign-in, or by ``fw doctor`` (:meth:`OidcOnly.probe`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import httpx2

import fw.auth.runtime as runtime
from fw.auth.accounts import AccountSeams, StoredAccounts
from fw.auth.admission import build as build_admission
from fw.auth.assurance.presence_browser import BrowserAssurance
from fw.auth.browser.answers import not_started
from fw.auth.browser.build import browser_auth, browser_sessions
from fw.auth.browser.login_keys import AgreedLoginStates
from fw.auth.browser.middleware import BrowserSessionMiddleware
from fw.auth.browser.origins import Origins
from fw.auth.browser.stores import open_browser_stores
from fw.auth.modes.base import ModeSettings
from fw.auth.modes.oidc_only.backchannel import BackchannelLogout
from fw.auth.modes.oidc_only.login import AccountGate, OidcLogin
from fw.auth.modes.oidc_only.logout import OidcLogout
from fw.auth.modes.oidc_only.probe import probe_provider
from fw.auth.modes.oidc_only.started import Started
from fw.auth.oidc import Provider
from fw.auth.probes import Pacing, provider_probe, store_probes
from fw.auth.sessions.manager import Sessions
from fw.auth.stores.interfaces import AuthStore, CeremonyStore, SessionStore
from fw.auth.stores.records import RecordKind
from fw.auth.stores.registry import find_store
from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute, Route
from fw.extension import Probe


class OidcOnly:
    """The ``oidc_only`` extension plugged into the App."""

    def __init__(
        self,
        settings: ModeSettings,
        *,
        http: httpx2.AsyncClient | None = None,
        extra_kinds: Sequence[RecordKind] = (),
        exempt: Iterable[str] = (),
        account_gate: AccountGate | None = None,
    ) -> None:
        #: Records a mode composing this one keeps besides accounts and the allow-list.
        self.extra_kinds = tuple(extra_kinds)
        self.settings = settings
        self.app = settings.app
        auth = self.auth = settings.auth
        self.oidc = auth.oidc
        self._http = http
        self.auth_store: AuthStore | None = None
        self.store: SessionStore | None = None
        self.accounts = AccountSeams(settings.app)
        self._lent: runtime.RunningAuth | None = None
        self.started: Started | None = None
        #: How often readiness may fetch the discovery document (:mod:`fw.auth.probes`).
        self.pacing = Pacing()
        origins = Origins(
            "auth.oidc.redirect_url",
            self.oidc.redirect_url,
            auth.callback_path,
            self.oidc.allow_loopback_http,
        )
        self.login = OidcLogin(auth, origins, self._started, account_gate, self._ceremonies)
        #: Presence and the remembered visitor, when ``[auth.assurance]`` turns them on.
        self.presence = BrowserAssurance.build(auth, lambda: self.sessions, origins.cross_origin)
        assurance = self.presence
        self.logout = OidcLogout(
            self.oidc, origins, self._started, assurance.farewell if assurance is not None else None
        )
        self.backchannel = BackchannelLogout(self.oidc.client_id, self._started, self._ceremonies)
        backchannel_paths = (self.oidc.backchannel_logout_path,) if self.oidc.backchannel_logout_path else ()
        self.browser = browser_auth(
            auth,
            settings.app_env,
            app=settings.app,
            sessions=lambda: self.sessions,
            ceremonies=self._ceremonies,
            accounts=self.accounts,
            presence=assurance,
            exempt=(auth.callback_path, *backchannel_paths, *exempt),
        )

    # Extension protocol.
    def routes(self) -> Sequence[BaseRoute]:
        routes = [
            Route(self.auth.login_path, self.login.login, methods=["GET"]),
            Route(self.auth.callback_path, self.login.callback, methods=["GET"]),
            Route(self.auth.logout_path, self.logout.logout, methods=["POST"]),
            *(self.presence.routes() if self.presence is not None else ()),
        ]
        if self.oidc.backchannel_logout_path:
            path = self.oidc.backchannel_logout_path
            routes.append(Route(path, self.backchannel.receive, methods=["POST"]))
        return routes

    def middleware(self) -> Sequence[Middleware]:
        return [BrowserSessionMiddleware(self.browser)]

    async def startup(self) -> None:
        kinds: list[RecordKind] = ["accounts", "allowlist", *self.extra_kinds]
        if self.oidc.backchannel_logout_path:
            # Spent logout-token jtis live with the ceremonies; sessions need their marks' index.
            wanted: list[RecordKind] = ["ceremonies"]
            engine = find_store(self.settings.session.backend)
            if engine is not None and engine.sessions_in_auth_store:  # rdb: an index table of its own
                wanted.append("session_marks")
            kinds += [kind for kind in wanted if kind not in kinds]
        stores = await open_browser_stores(
            self.auth.backend, self.settings.stores, self.settings.session, kinds, self.settings.lookup
        )
        auth_store = self.auth_store = stores.auth
        self.store = stores.sessions
        self.accounts.default = StoredAccounts(auth_store.accounts)
        self.started = Started(
            provider=Provider(
                self.oidc.issuer, allow_loopback_http=self.oidc.allow_loopback_http, http=self._http
            ),
            sessions=browser_sessions(self.auth, stores.sessions),
            logins=AgreedLoginStates(stores.sessions, stores.shared_key),
            admission=build_admission(self.oidc, auth_store.allowlist),
            accounts=self.accounts,
        )
        self._lent = runtime.RunningAuth(self.app, auth_store, self.auth)
        runtime.start(self._lent)

    def readiness_probes(self) -> list[Probe]:
        """Readiness (:class:`fw.extension.Ready`): the ``auth.backend`` and session stores it
        opened, and the provider's discovery document."""
        return [
            *store_probes(self.auth_store, self.store),
            provider_probe(lambda: self.provider, self.pacing),
        ]

    async def probe(self) -> None:
        """``fw doctor``: fetch the provider's discovery document and keys as a sign-in would."""
        await probe_provider(self._started().provider, "auth.oidc.issuer")

    async def shutdown(self) -> None:
        started, self.started = self.started, None
        if self._lent is not None:
            runtime.stop(self._lent)
            self._lent = None
        if self.store is not None:
            await self.store.close()
        if started is not None and self._http is None:
            await started.provider.aclose()
        if self.auth_store is not None:
            await self.auth_store.close()
        self.auth_store = self.store = self.accounts.default = None

    # What the endpoints and the middleware use.
    def _started(self) -> Started:
        if self.started is None:
            raise not_started()
        return self.started

    def _ceremonies(self) -> CeremonyStore:
        """The ``auth.backend`` ceremony store (step-up grants); a 503 before startup."""
        if self.auth_store is None:
            raise not_started()
        return self.auth_store.ceremonies

    @property
    def sessions(self) -> Sessions:
        return self._started().sessions

    @property
    def provider(self) -> Provider | None:
        return self.started.provider if self.started is not None else None
