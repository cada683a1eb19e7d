"""The development identity provider: a real OpenID provider on loopback with a user picker.

``fw dev`` starts it when ``[tool.fw.dev.idp] enabled = true``, on the port and with the signing
key kept in the project's ``.fw/`` (:mod:`fw.devidp.stable`), and for ``jwt_only`` it is the
development token issuer ``fw token`` signs for; ``fw.testing.identity_provider`` starts the same
one for tests. It refuses to run anywhere but loopback and ``APP_ENV=dev``.
"""

from fw.devidp.loopback import NotLoopbackError, is_loopback_uri
from fw.devidp.model import DEFAULT_USERS, DevClient, DevUser
from fw.devidp.provider import DevProvider
from fw.devidp.server import RunningProvider

__all__ = [
    "DEFAULT_USERS",
    "DevClient",
    "DevProvider",
    "DevUser",
    "NotLoopbackError",
    "RunningProvider",
    "is_loopback_uri",
]
