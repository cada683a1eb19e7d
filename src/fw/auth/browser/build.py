"""What a browser mode hands the session middleware, built in one place for every browser mode.

Every browser mode (``oidc_only``, ``oauth_only``, ``passkey_only``, and ``oidc_passkey``
through ``oidc_only``) installs the same :class:`~fw.auth.browser.middleware.BrowserSessionMiddleware`;
only where its sessions, ceremonies and accounts come from and which of its own paths answer
for themselves differ. The rest (path protection, the login path, the assurance context, the
cookie policy) follows from ``[auth]`` and ``APP_ENV`` the same way for all of them, and so do
the lifetimes of the sessions they keep (:func:`browser_sessions`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fw.auth.accounts import AccountSeams
from fw.auth.assurance.context import build_context
from fw.auth.assurance.presence_browser import BrowserAssurance
from fw.auth.browser.cookies import CookiePolicy
from fw.auth.browser.middleware import BrowserAuth
from fw.auth.protection import Protection
from fw.auth.sessions.manager import Sessions
from fw.auth.settings import AuthSettings
from fw.auth.stores.interfaces import CeremonyStore, SessionStore
from fw.extension import public_paths


def browser_auth(
    auth: AuthSettings,
    app_env: str,
    *,
    app: object,
    sessions: Callable[[], Sessions],
    ceremonies: Callable[[], CeremonyStore],
    accounts: AccountSeams,
    presence: BrowserAssurance | None,
    exempt: Iterable[str] = (),
) -> BrowserAuth:
    """The middleware's view of a browser mode configured by ``auth`` under ``APP_ENV`` ``app_env``.

    ``sessions`` and ``ceremonies`` are read per request (a 503 before startup); ``exempt`` names
    the mode's own paths that answer for themselves (its callback, its ceremony endpoints),
    besides ``auth.login_path``, ``auth.logout_path``, presence's paths and the paths the pillars
    declare public for ``app`` (:func:`fw.extension.public_paths`: the health probes, the metrics
    scrape), which every browser mode exempts from path protection.
    """
    return BrowserAuth(
        sessions=sessions,
        accounts=accounts,
        protection=Protection.from_patterns(auth.protection.include, auth.protection.exclude),
        login_path=auth.login_path,
        unauthenticated=auth.protection.unauthenticated,
        exempt=frozenset(
            {
                auth.login_path,
                auth.logout_path,
                *exempt,
                *(presence.paths() if presence is not None else ()),
                *public_paths(app),  # health probes and the metrics scrape carry no session
            }
        ),
        assurance=build_context(auth, sessions, ceremonies),
        presence=presence,
        cookies=CookiePolicy.of(app_env, auth),
        mode=auth.mode,
    )


def browser_sessions(auth: AuthSettings, store: SessionStore) -> Sessions:
    """The sessions of a browser mode, kept in ``store`` for ``auth.session``'s lifetime and idle timeout."""
    return Sessions(
        store,
        ttl=auth.session.ttl.total_seconds(),
        idle_timeout=auth.session.idle_timeout.total_seconds(),
    )
