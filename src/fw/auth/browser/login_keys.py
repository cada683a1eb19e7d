"""The key sealing sign-ins in progress, kept the same in every app process.

Every process takes the key from the session backend (``SessionStore.shared_key``: the first to
ask creates it, the others read it). A backend can lose it, though: Redis restarted without
persistence, an eviction, a ``FLUSHALL``. A process started afterwards then creates another,
while the processes started earlier still hold the old one, and a sign-in begun on one process
fails on another ("no sign-in is in progress in this browser"). So a process agrees on the key
with the backend again:

- before each seal (the start of every sign-in): the backend's key if it still has one, else
  the key this process uses, offered to the backend and kept for everybody (``SET NX`` then
  ``GET``, or the backend's equivalent; sign-ins already under way keep opening); a cookie is
  never sealed with a key the backend no longer holds;
- when a cookie does not open, once, before refusing it: another process may have agreed on a
  new key since.

A cookie that still does not open (sealed with a key the backend lost, by another deployment,
or forged) is logged, as a sign-in that fails without a trace cannot be diagnosed. With the
``cookie`` session backend the key is derived from ``session.keyring.secret``, the same in every
process by configuration, and agreeing again costs nothing.
"""

from __future__ import annotations

import hmac
import logging

from fw.auth.browser.answers import unavailable
from fw.auth.browser.login_state import LOGIN_COOKIE, LoginAttempt, LoginStates
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import SessionStore

logger = logging.getLogger("fw.auth")


class AgreedLoginStates:
    """Seals and opens the ``fw_login`` cookie with the key the session backend holds now."""

    def __init__(self, store: SessionStore, key: bytes) -> None:
        self._store = store
        self._key = key
        self._states = LoginStates(key)

    take = staticmethod(LoginStates.take)

    async def seal(self, attempts: list[LoginAttempt]) -> str:
        """The cookie value for ``attempts``, sealed with the key agreed with the backend just now."""
        return (await self._agree()).seal(attempts)

    def reseal(self, attempts: list[LoginAttempt]) -> str:
        """The cookie value for ``attempts`` with the key of this process's last agreement or
        opening (attempts left for other tabs by a callback that just opened the cookie)."""
        return self._states.seal(attempts)

    async def open(self, value: str | None) -> list[LoginAttempt]:
        """The unexpired attempts in a cookie value; one that does not open even with the key
        agreed again is ``[]`` and logged."""
        states = self._states
        opened = states.unseal(value)
        if opened is not None:
            return opened
        agreed = await self._agree()
        opened = agreed.unseal(value) if agreed is not states else None
        if opened is not None:
            return opened
        logger.warning(
            "a %s cookie does not open with the sign-in key the session store holds (sealed with a "
            "key the store has since lost, by another deployment, or forged): that sign-in must "
            "start again",
            LOGIN_COOKIE,
        )
        return []

    async def _agree(self) -> LoginStates:
        """The key the backend holds now (it keeps this process's own when it holds none)."""
        try:
            key = await self._store.shared_key(offer=self._key)
        except StoreUnavailable as error:
            logger.error("session store unavailable while agreeing on the sign-in key: %s", error)
            raise unavailable("session store") from None
        if not hmac.compare_digest(key, self._key):
            logger.warning(
                "the sign-in key in the session store changed (the store lost it, or another "
                "process replaced it): this process now seals and opens sign-ins with the store's key"
            )
            self._key, self._states = key, LoginStates(key)
        return self._states
