"""A development stand-in for X (``auth.oauth.provider = "x"``) on loopback, with a user picker.

``fw dev`` serves it for ``oauth_only`` when ``[tool.fw.dev.idp] enabled = true``;
``fw.testing.oauth_provider`` starts the same one for tests. Like the OpenID development
provider it runs only on loopback with ``APP_ENV=dev``.
"""

from fw.devidp.x.model import DEFAULT_X_USERS, LookupFailure, XRequest, XState, XUser
from fw.devidp.x.provider import XProvider
from fw.devidp.x.server import RunningXProvider

__all__ = ["DEFAULT_X_USERS", "LookupFailure", "RunningXProvider", "XProvider", "XRequest", "XState", "XUser"]
