"""``auth.mode = "oauth_only"``: sign in at a provider that issues no ID token (``x``).

Composition only, split by job: :mod:`.settings` (startup checks, advisories, what ``fw dev``
injects), :mod:`.login` (login and callback), :mod:`.extension` (startup, wiring, the local
logout) and :mod:`.mode` (the registry's entry). The protocol lives in :mod:`fw.auth.oauth`,
what every browser mode shares in :mod:`fw.auth.browser`.
"""

from fw.auth.modes.oauth_only.extension import OauthOnly
from fw.auth.modes.oauth_only.mode import OAUTH_ONLY, OauthOnlyMode

__all__ = ["OAUTH_ONLY", "OauthOnly", "OauthOnlyMode"]
