"""``auth.mode = "oauth_only"``: sign in at a provider that issues no ID token, keep a browser session.

The mode object the registry holds. It reads ``[auth.oauth]`` only (and, as a browser mode,
``[auth.session]`` and ``[auth.assurance]``): ``[auth.oidc]`` keys such as ``logout_scope`` and
``auth.shared_device`` are foreign to it and refused at startup. ``fw dev`` points it at the
X-shaped stand-in; ``fw init`` lists it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold

if TYPE_CHECKING:
    from fw.auth.modes.oauth_only.extension import OauthOnly
    from fw.configuration.advisory import Advisory


# Every mode object has this shape (the methods of fw.auth.modes.base.Mode, each importing its own
# mode's module when called, so a mode that is not selected loads nothing): the repetition across
# the mode packages is deliberate, and only the names they import differ.
class OauthOnlyMode:
    """The :class:`fw.auth.modes.base.Mode` of ``oauth_only``."""

    name = "oauth_only"
    browser = True
    tables: tuple[str, ...] = ("oauth",)
    scaffold = Scaffold(offered=True, available=True)

    def check(self, settings: ModeSettings) -> None:
        from fw.auth.modes.oauth_only.settings import check_oauth_only

        check_oauth_only(settings)

    def extension(self, settings: ModeSettings) -> OauthOnly:
        from fw.auth.modes.oauth_only.extension import OauthOnly

        return OauthOnly(settings)

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        from fw.auth.modes.oauth_only.settings import oauth_advisories

        return oauth_advisories(values, app_env)

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        from fw.auth.modes.oauth_only.settings import oauth_dev_environment

        return oauth_dev_environment(issuer)


OAUTH_ONLY = OauthOnlyMode()
