"""The secrets of sign-ins in progress, sealed into the browser's ``fw_login`` cookie.

Why a cookie and not a store record: every anonymous GET of the login path starts an attempt, so
a store record per attempt would let an anonymous flood fill the session store. Sealed in the
cookie, an attempt costs the server nothing until its callback arrives.

Why sealed (AES-256-GCM) and not plain: the PKCE verifier and nonce stay unreadable even to the
browser, and nothing but this deployment can mint an attempt. The key is shared by every app
process through the session backend (see ``SessionStore.shared_key``), so a login begun on one
process finishes on another; :mod:`fw.auth.browser.login_keys` keeps the processes agreeing on it
when the backend loses it.

A browser may have a few attempts in flight (two tabs both sent to sign in); each callback
takes only the attempt whose ``state`` it carries, so concurrent logins never mix and a forged
callback cannot discard a genuine attempt.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import asdict, dataclass
from typing import Any

from fw.auth.sessions.seal import Sealer

LOGIN_COOKIE = "fw_login"
LOGIN_LIFETIME = 600.0
#: Attempts kept per browser; the oldest is dropped first.
MAX_ATTEMPTS = 3
#: Browsers keep at least 4096 bytes per cookie, name and attributes included.
MAX_SEALED = 3600


@dataclass(frozen=True)
class LoginAttempt:
    """One authorization request on its way to the provider and back."""

    state: str
    nonce: str
    verifier: str
    redirect_uri: str
    next: str
    expires_at: float
    #: A step-up's window and the session identity it re-proves (:class:`fw.auth.assurance.stepup.StepUp`
    #: as a mapping); ``None`` for an ordinary login.
    step_up: dict[str, Any] | None = None


class LoginStates:
    """Seals and opens the ``fw_login`` cookie."""

    def __init__(self, key: bytes) -> None:
        self._sealer = Sealer(key, "login state")

    def open(self, value: str | None, *, now: float | None = None) -> list[LoginAttempt]:
        """The unexpired attempts in a cookie value; a forged, truncated or stale value is ``[]``."""
        return self.unseal(value, now=now) or []

    def unseal(self, value: str | None, *, now: float | None = None) -> list[LoginAttempt] | None:
        """As :meth:`open`, but ``None`` for a value that does not open with this key (forged,
        damaged, or sealed with another key), so a caller can tell it from no attempt at all."""
        if not value:
            return []
        if len(value) > MAX_SEALED:
            return None
        items = self._sealer.open(value)
        if items is None:
            return None
        moment = time.time() if now is None else now
        attempts: list[LoginAttempt] = []
        for item in items if isinstance(items, list) else []:
            try:
                attempt = LoginAttempt(**item)
            except TypeError:
                continue
            texts = (attempt.state, attempt.nonce, attempt.verifier, attempt.redirect_uri, attempt.next)
            if not all(isinstance(text, str) for text in texts):
                continue
            if attempt.step_up is not None and not isinstance(attempt.step_up, dict):
                continue
            if isinstance(attempt.expires_at, int | float) and attempt.expires_at > moment:
                attempts.append(attempt)
        return attempts

    def seal(self, attempts: list[LoginAttempt]) -> str:
        """The cookie value for ``attempts`` (newest last), dropping the oldest until it fits."""
        kept = attempts[-MAX_ATTEMPTS:]
        while True:
            sealed = self._sealer.seal([asdict(a) for a in kept])
            if len(sealed) <= MAX_SEALED or len(kept) <= 1:
                return sealed
            kept = kept[1:]

    @staticmethod
    def take(attempts: list[LoginAttempt], state: str) -> tuple[LoginAttempt | None, list[LoginAttempt]]:
        """The attempt ``state`` belongs to, and the attempts left for other tabs."""
        found: LoginAttempt | None = None
        rest: list[LoginAttempt] = []
        for attempt in attempts:
            # Constant-time comparison of every candidate: timing says nothing about which matched.
            if hmac.compare_digest(attempt.state.encode(), state.encode()) and found is None:
                found = attempt
            else:
                rest.append(attempt)
        return found, rest
