"""``auth.mode = "oidc_only"``: sign in with an OpenID provider, keep a browser session.

Composition only, split by job: :mod:`.settings` (startup checks, advisories, what ``fw dev``
injects), :mod:`.login` (login and callback), :mod:`.logout`, :mod:`.extension` (startup and
wiring) and :mod:`.mode` (the registry's entry). The protocol lives in :mod:`fw.auth.oidc`,
sessions in :mod:`fw.auth.sessions`, what every browser mode shares in :mod:`fw.auth.browser`.
"""

from fw.auth.modes.oidc_only.extension import OidcOnly
from fw.auth.modes.oidc_only.mode import OIDC_ONLY, OidcOnlyMode

__all__ = ["OIDC_ONLY", "OidcOnly", "OidcOnlyMode"]
