"""The authentication modes fw ships, each registered in the one registry every tool reads.

A mode is a package here (``jwt_only/``, ``oidc_only/``, ``oidc_passkey/``, ``passkey_only/``,
``oauth_only/``)
whose ``mode`` module holds the object the registry keeps (:class:`fw.auth.modes.base.Mode`).
The order of registration is the order messages list the modes in. Registering imports only the
mode objects: each imports its checks, advisories and extension when asked for them, so a
configuration loads the code of the mode it selects and no other's (DESIGN 10.1).
"""

from fw.auth.modes.jwt_only import JWT_ONLY
from fw.auth.modes.oauth_only import OAUTH_ONLY
from fw.auth.modes.oidc_only import OIDC_ONLY
from fw.auth.modes.oidc_passkey import OIDC_PASSKEY
from fw.auth.modes.passkey_only import PASSKEY_ONLY
from fw.auth.modes.registry import register_mode

for _mode in (OIDC_ONLY, OIDC_PASSKEY, PASSKEY_ONLY, OAUTH_ONLY, JWT_ONLY):
    register_mode(_mode)
