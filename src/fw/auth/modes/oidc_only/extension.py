"""The ``oidc_only`` extension: its startup, its endpoints and the browser session middleware.

Startup opens ``[middleware.rdb]`` (accounts, allow-list, and sessions when ``session.backend``
is ``rdb``), checks the tables, opens the session store and reads the key that seals login
state; any failure refuses the start with nothing left open.
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx2
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Route

from fw.auth.accounts import AccountTable
from fw.auth.admission import build as build_admission
from fw.auth.browser.answers import not_started
from fw.auth.browser.login_state import LoginStates
from fw.auth.browser.middleware import BrowserAuth, BrowserSessionMiddleware
from fw.auth.browser.origins import Origins
from fw.auth.modes.base import ModeSettings
from fw.auth.modes.oidc_only.login import OidcLogin
from fw.auth.modes.oidc_only.logout import OidcLogout
from fw.auth.modes.oidc_only.started import Started
from fw.auth.oidc import Provider
from fw.auth.protection import Protection
from fw.auth.sessions.backends import open_store
from fw.auth.sessions.manager import Sessions
from fw.auth.sessions.store import SessionStore, SessionStoreUnavailable
from fw.errors import StartupError
from fw.rdb import runtime
from fw.rdb.engine import create_engine, require_tables


class OidcOnly:
    """The ``oidc_only`` extension plugged into the App."""

    def __init__(self, settings: ModeSettings, *, http: httpx2.AsyncClient | None = None) -> None:
        self.settings = settings
        auth = self.auth = settings.auth
        self.oidc = auth.oidc
        self._http = http
        self.engine: AsyncEngine | None = None
        self.store: SessionStore | None = None
        self.started: Started | None = None
        self.protection = Protection.from_patterns(auth.protection.include, auth.protection.exclude)
        origins = Origins(
            "auth.oidc.redirect_url",
            self.oidc.redirect_url,
            auth.callback_path,
            self.oidc.allow_loopback_http,
        )
        self.login = OidcLogin(auth, origins, self._started)
        self.logout = OidcLogout(self.oidc, origins, self._started)
        self.browser = BrowserAuth(
            sessions=lambda: self.sessions,
            accounts=lambda: self.started.accounts if self.started is not None else None,
            protection=self.protection,
            login_path=auth.login_path,
            unauthenticated=auth.protection.unauthenticated,
            exempt=frozenset({auth.login_path, auth.callback_path, auth.logout_path}),
        )

    # Extension protocol.
    def routes(self) -> Sequence[BaseRoute]:
        return [
            Route(self.auth.login_path, self.login.login, methods=["GET"]),
            Route(self.auth.callback_path, self.login.callback, methods=["GET"]),
            Route(self.auth.logout_path, self.logout.logout, methods=["POST"]),
        ]

    def middleware(self) -> Sequence[Middleware]:
        return [Middleware(BrowserSessionMiddleware, auth=self.browser)]

    async def startup(self) -> None:
        dsn = self.settings.rdb.dsn
        engine = create_engine(dsn)
        store: SessionStore | None = None
        try:
            tables = ["fw_accounts", "fw_allowlist"]
            if self.settings.session.backend == "rdb":
                tables.append("fw_sessions")
            await require_tables(engine, dsn, tables)
            store = open_store(self.settings.session, engine)
            await store.check()
            try:
                logins = LoginStates(await store.shared_key())
            except SessionStoreUnavailable as error:
                raise StartupError(
                    "session.backend",
                    self.settings.session.backend,
                    f"the session store cannot answer ({error})",
                ) from None
        except BaseException:
            if store is not None:
                await store.close()
            await engine.dispose()
            raise
        self.engine = engine
        self.store = store
        self.started = Started(
            provider=Provider(
                self.oidc.issuer, allow_loopback_http=self.oidc.allow_loopback_http, http=self._http
            ),
            sessions=Sessions(
                store,
                ttl=self.auth.session.ttl.total_seconds(),
                idle_timeout=self.auth.session.idle_timeout.total_seconds(),
            ),
            logins=logins,
            admission=build_admission(self.oidc, engine),
            accounts=AccountTable(engine),
        )
        runtime.register(engine)

    async def shutdown(self) -> None:
        started, self.started = self.started, None
        if self.store is not None:
            await self.store.close()
        if started is not None and self._http is None:
            await started.provider.aclose()
        if self.engine is not None:
            runtime.unregister(self.engine)
            await self.engine.dispose()
        self.engine = self.store = None

    # What the endpoints and the middleware use.
    def _started(self) -> Started:
        if self.started is None:
            raise not_started()
        return self.started

    @property
    def sessions(self) -> Sessions:
        return self._started().sessions

    @property
    def provider(self) -> Provider | None:
        return self.started.provider if self.started is not None else None
