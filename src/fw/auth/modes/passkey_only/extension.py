"""The ``passkey_only`` extension: its startup, its endpoints and the browser session middleware.

Startup opens the ``auth.backend`` store (accounts, ceremonies, passkeys, bootstrap records, and
sessions when ``session.backend`` is ``rdb``) and the session store; any failure refuses the
start with nothing left open. Its store is lent to :mod:`fw.auth.runtime`, so
``fw.auth.issue_bootstrap_credential`` and the other calls reach it.
"""

from __future__ import annotations

from collections.abc import Sequence

import fw.auth.runtime as runtime
from fw.auth.accounts import AccountSeams, StoredAccounts
from fw.auth.assurance.presence_browser import BrowserAssurance
from fw.auth.browser.answers import not_started
from fw.auth.browser.build import browser_auth, browser_sessions
from fw.auth.browser.middleware import BrowserSessionMiddleware
from fw.auth.browser.stores import BrowserStores, open_browser_stores
from fw.auth.modes.base import ModeSettings
from fw.auth.modes.passkey_only.bootstrap import TICKET_COOKIE, BootstrapRedemption
from fw.auth.modes.passkey_only.logout import PasskeyLogout
from fw.auth.modes.passkey_only.registrants import PasskeyOnlyRegistrants
from fw.auth.passkeys.bound import BoundRecords
from fw.auth.passkeys.endpoints import PasskeyEndpoints
from fw.auth.passkeys.live import Live
from fw.auth.passkeys.page import SignInPage
from fw.auth.probes import store_probes
from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute, Route
from fw.extension import Probe


class PasskeyOnly:
    """The ``passkey_only`` extension plugged into the App."""

    def __init__(self, settings: ModeSettings) -> None:
        self.settings = settings
        auth = self.auth = settings.auth
        self.accounts = AccountSeams(settings.app)
        self.stores: BrowserStores | None = None
        self.live: Live | None = None
        self._lent: runtime.RunningAuth | None = None
        tickets = BoundRecords("ticket", TICKET_COOKIE, auth.passkey.path.rstrip("/"))
        self.bootstrap = BootstrapRedemption(auth, self._live, tickets)
        self.passkeys = PasskeyEndpoints(
            auth,
            self._live,
            PasskeyOnlyRegistrants(auth.registration.policy, tickets),
            tickets=tickets,
            extra={"/bootstrap": self.bootstrap.redeem},
        )
        self.signin_page = SignInPage(auth.passkey.path, bootstrap=True)  # served at auth.login_path
        self.logout = PasskeyLogout(self.passkeys.party.origins, self._live)
        #: Presence and the remembered visitor, when ``[auth.assurance]`` turns them on.
        self.presence = assurance = BrowserAssurance.build(
            auth, lambda: self._live().sessions, self.logout.cross_origin
        )
        self.logout.farewell = assurance.farewell if assurance is not None else None
        self.browser = browser_auth(
            auth,
            settings.app_env,
            app=settings.app,
            sessions=lambda: self._live().sessions,
            ceremonies=lambda: self._live().store.ceremonies,
            accounts=self.accounts,
            presence=assurance,
            exempt=self.passkeys.paths(),
        )

    # Extension protocol.
    def routes(self) -> Sequence[BaseRoute]:
        return [
            *self.passkeys.routes(),
            *self._signin_routes(),
            Route(self.auth.logout_path, self.logout.logout, methods=["POST"]),
            *(self.presence.routes() if self.presence is not None else ()),
        ]

    def _signin_routes(self) -> list[BaseRoute]:
        """fw's sign-in page at ``auth.login_path``, unless the application routes a GET there
        itself: then its own page is the one path protection sends browsers to."""
        login_path = self.auth.login_path
        for entry in getattr(self.settings.app, "entries", ()):
            if entry.pattern.path == login_path and entry.pattern.method in (None, "GET"):
                return []
        return [Route(login_path, self.signin_page.serve, methods=["GET"])]

    def middleware(self) -> Sequence[Middleware]:
        return [BrowserSessionMiddleware(self.browser)]

    async def startup(self) -> None:
        stores = await open_browser_stores(
            self.auth.backend,
            self.settings.stores,
            self.settings.session,
            ["accounts", "ceremonies", "passkeys", "bootstrap"],
            self.settings.lookup,
        )
        self.stores = stores
        self.accounts.default = StoredAccounts(stores.auth.accounts)
        sessions = browser_sessions(self.auth, stores.sessions)
        self.live = Live(stores.auth, sessions, self.accounts)
        self._lent = runtime.RunningAuth(self.settings.app, stores.auth, self.auth)
        runtime.start(self._lent)

    def readiness_probes(self) -> list[Probe]:
        """Readiness (:class:`fw.extension.Ready`): the ``auth.backend`` and session stores it opened."""
        stores = self.stores
        return store_probes(stores.auth, stores.sessions) if stores is not None else []

    async def shutdown(self) -> None:
        self.live = None
        if self._lent is not None:
            runtime.stop(self._lent)
            self._lent = None
        stores, self.stores = self.stores, None
        self.accounts.default = None
        if stores is not None:
            await stores.close()

    def _live(self) -> Live:
        if self.live is None:
            raise not_started()
        return self.live
