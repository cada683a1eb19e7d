"""``auth.mode = "oidc_only"``: sign in with an OpenID provider, keep a browser session.

The mode object the registry holds. It reads ``[auth.oidc]`` and ``shared_device`` (and, as a
browser mode, ``[auth.session]`` and ``[auth.assurance]``); ``fw dev`` points it at the
development provider; ``fw init`` scaffolds it, and the ``web`` preset uses it by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold

if TYPE_CHECKING:
    from fw.auth.modes.oidc_only.extension import OidcOnly
    from fw.configuration.advisory import Advisory


class OidcOnlyMode:
    """The :class:`fw.auth.modes.base.Mode` of ``oidc_only``."""

    name = "oidc_only"
    browser = True
    tables: tuple[str, ...] = ("oidc", "shared_device")
    scaffold = Scaffold(offered=True, available=True, default_for=frozenset({"web"}))

    def check(self, settings: ModeSettings) -> None:
        from fw.auth.modes.oidc_only.settings import check_oidc_only

        check_oidc_only(settings)

    def extension(self, settings: ModeSettings) -> OidcOnly:
        from fw.auth.modes.oidc_only.extension import OidcOnly

        return OidcOnly(settings)

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        from fw.auth.modes.oidc_only.settings import oidc_advisories

        return oidc_advisories(values, app_env)

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        from fw.auth.modes.oidc_only.settings import oidc_dev_environment

        return oidc_dev_environment(issuer)


OIDC_ONLY = OidcOnlyMode()
