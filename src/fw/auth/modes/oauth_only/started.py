"""What ``oauth_only``'s endpoints use once startup succeeded; shutdown drops it."""

from __future__ import annotations

from dataclasses import dataclass

import httpx2

from fw.auth.accounts import AccountSeams
from fw.auth.admission import Admission
from fw.auth.browser.login_keys import AgreedLoginStates
from fw.auth.sessions.manager import Sessions


@dataclass(slots=True)
class Started:
    """The HTTP client for the provider, the session manager, the login-state sealer, the accounts."""

    http: httpx2.AsyncClient
    sessions: Sessions
    logins: AgreedLoginStates
    admission: Admission
    accounts: AccountSeams
