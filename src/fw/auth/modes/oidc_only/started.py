"""What ``oidc_only``'s endpoints use once startup succeeded; shutdown drops it."""

from __future__ import annotations

from dataclasses import dataclass

from fw.auth.accounts import AccountSeams
from fw.auth.admission import Admission
from fw.auth.browser.login_keys import AgreedLoginStates
from fw.auth.oidc import Provider
from fw.auth.sessions.manager import Sessions


@dataclass(slots=True)
class Started:
    """The provider client, the session manager, the login-state sealer and the account stores."""

    provider: Provider
    sessions: Sessions
    logins: AgreedLoginStates
    admission: Admission
    accounts: AccountSeams
