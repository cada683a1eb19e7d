"""``cookie``: the session record travels sealed inside the cookie (:mod:`fw.auth.stores.cookie`).

It keeps sessions only, under the key ``session.keyring.secret``; nothing to migrate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings

if TYPE_CHECKING:
    from fw.auth.stores.interfaces import SessionStore


def open_cookie_sessions(settings: StoreSettings) -> SessionStore:
    from fw.auth.stores.cookie import CookieSessions

    assert settings.session is not None, "cookie sessions are opened with the [session] settings"
    return CookieSessions(settings.session.keyring.secret)


COOKIE = StoreEngine(
    name="cookie",
    open_sessions=open_cookie_sessions,
    recalls_sessions=False,
    scaffold=StoreScaffold(offered=True, test_imports=("import secrets",)),
)
