"""The ``oauth_only`` extension: its startup, its endpoints and the browser session middleware.

Startup opens the ``auth.backend`` store (accounts, allow-list, and sessions when
``session.backend`` is ``rdb``), the session store and the key sealing login state; any failure
refuses the start with nothing left open. Logout ends only the local session: the provider
offers no end-session endpoint, and its own session stays.
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx2
from starlette.requests import Request
from starlette.responses import Response

import fw.auth.runtime as runtime
from fw.auth.accounts import AccountSeams, StoredAccounts
from fw.auth.admission import build as build_admission
from fw.auth.assurance.presence_browser import BrowserAssurance
from fw.auth.browser.answers import not_started
from fw.auth.browser.build import browser_auth, browser_sessions
from fw.auth.browser.login_keys import AgreedLoginStates
from fw.auth.browser.middleware import BrowserSessionMiddleware
from fw.auth.browser.origins import Origins
from fw.auth.browser.signout import local_logout
from fw.auth.browser.stores import BrowserStores, open_browser_stores
from fw.auth.modes.base import ModeSettings
from fw.auth.modes.oauth_only.login import OauthLogin
from fw.auth.modes.oauth_only.settings import configured_provider
from fw.auth.modes.oauth_only.started import Started
from fw.auth.probes import store_probes
from fw.auth.stores.interfaces import CeremonyStore
from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute, Route
from fw.extension import Probe
from fw.problems import Problem

#: The provider answers within seconds or the browser waiting on the callback is told so.
PROVIDER_TIMEOUT = 10.0


class OauthOnly:
    """The ``oauth_only`` extension plugged into the App."""

    def __init__(self, settings: ModeSettings, *, http: httpx2.AsyncClient | None = None) -> None:
        self.settings = settings
        auth = self.auth = settings.auth
        self.provider = configured_provider(auth.oauth)
        self._http = http
        self.accounts = AccountSeams(settings.app)
        self.stores: BrowserStores | None = None
        self.started: Started | None = None
        self._lent: runtime.RunningAuth | None = None
        self.origins = Origins(
            "auth.oauth.redirect_url",
            auth.oauth.redirect_url,
            auth.callback_path,
            auth.oauth.allow_loopback_http,
        )
        self.login = OauthLogin(auth, self.provider, self.origins, self._started, self._ceremonies)
        #: Presence and the remembered visitor, when ``[auth.assurance]`` turns them on.
        self.presence = assurance = BrowserAssurance.build(
            auth, lambda: self._started().sessions, self.origins.cross_origin
        )
        self.browser = browser_auth(
            auth,
            settings.app_env,
            app=settings.app,
            sessions=lambda: self._started().sessions,
            ceremonies=self._ceremonies,
            accounts=self.accounts,
            presence=assurance,
            exempt=(auth.callback_path,),
        )

    # Extension protocol.
    def routes(self) -> Sequence[BaseRoute]:
        return [
            Route(self.auth.login_path, self.login.login, methods=["GET"]),
            Route(self.auth.callback_path, self.login.callback, methods=["GET"]),
            Route(self.auth.logout_path, self.logout, methods=["POST"]),
            *(self.presence.routes() if self.presence is not None else ()),
        ]

    def middleware(self) -> Sequence[Middleware]:
        return [BrowserSessionMiddleware(self.browser)]

    async def startup(self) -> None:
        stores = self.stores = await open_browser_stores(
            self.auth.backend,
            self.settings.stores,
            self.settings.session,
            ["accounts", "allowlist"],
            self.settings.lookup,
        )
        self.accounts.default = StoredAccounts(stores.auth.accounts)
        self.started = Started(
            http=self._http or httpx2.AsyncClient(timeout=PROVIDER_TIMEOUT),
            sessions=browser_sessions(self.auth, stores.sessions),
            logins=AgreedLoginStates(stores.sessions, stores.shared_key),
            admission=build_admission(self.auth.oauth, stores.auth.allowlist),
            accounts=self.accounts,
        )
        self._lent = runtime.RunningAuth(self.settings.app, stores.auth, self.auth)
        runtime.start(self._lent)

    def readiness_probes(self) -> list[Probe]:
        """Readiness (:class:`fw.extension.Ready`): the ``auth.backend`` and session stores it
        opened (the provider offers no discovery to check)."""
        stores = self.stores
        return store_probes(stores.auth, stores.sessions) if stores is not None else []

    async def shutdown(self) -> None:
        started, self.started = self.started, None
        if self._lent is not None:
            runtime.stop(self._lent)
            self._lent = None
        if started is not None and self._http is None:
            await started.http.aclose()
        stores, self.stores = self.stores, None
        self.accounts.default = None
        if stores is not None:
            await stores.close()

    async def logout(self, request: Request) -> Response:
        """``POST logout_path``: a same-origin POST ends the local session; the provider's stays."""
        if self.origins.cross_origin(request):
            raise Problem("cross-origin logout refused", status=403, code="cross_origin")
        farewell = self.presence.farewell if self.presence is not None else None
        return await local_logout(request, self._started().sessions, farewell=farewell)

    def _ceremonies(self) -> CeremonyStore:
        """The ``auth.backend`` ceremony store; a 503 before startup."""
        if self.stores is None:
            raise not_started()
        return self.stores.auth.ceremonies

    def _started(self) -> Started:
        if self.started is None:
            raise not_started()
        return self.started
