"""What the passkey endpoints use once their mode started: the ``auth.backend`` store, the
session manager and the App's account seams. Shutdown drops it; a request meanwhile gets 503."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fw.auth.accounts import AccountSeams
from fw.auth.sessions.manager import Sessions
from fw.auth.stores.interfaces import AuthStore


@dataclass(frozen=True, slots=True)
class Live:
    store: AuthStore
    sessions: Sessions
    accounts: AccountSeams


#: How an endpoint reaches the running state (raises the 503 problem before startup).
LiveState = Callable[[], Live]
