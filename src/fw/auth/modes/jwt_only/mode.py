"""``auth.mode = "jwt_only"``: every request's bearer access token is verified before the handler.

The mode object the registry holds: ``[auth.jwt]`` is its only table, its checks are in
:mod:`fw.auth.modes.jwt_only.settings`, its extension in :mod:`fw.auth.modes.jwt_only.extension`.
In development ``fw dev`` serves a token issuer on loopback (the development provider's discovery
and keys, :mod:`fw.devidp.stable`) and points ``auth.jwt.issuer`` at it; ``fw token`` prints
access tokens signed with its key. ``fw init`` makes the mode only as the api preset's default,
never as an ``--auth`` choice: a browser flow and a bearer API are different trust models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold

if TYPE_CHECKING:
    from fw.auth.modes.jwt_only.extension import JwtOnly
    from fw.configuration.advisory import Advisory


class JwtOnlyMode:
    """The :class:`fw.auth.modes.base.Mode` of ``jwt_only``."""

    name = "jwt_only"
    browser = False
    tables = ("jwt",)
    scaffold = Scaffold(
        available=True,
        default_for=frozenset({"api"}),
        refusal="a bearer-token API is what the api preset makes "
        "(fw init --preset api; see docs/auth-jwt.md)",
    )

    def check(self, settings: ModeSettings) -> None:
        from fw.auth.modes.jwt_only.settings import check_jwt

        check_jwt(settings.auth.jwt)

    def extension(self, settings: ModeSettings) -> JwtOnly:
        from fw.auth.modes.jwt_only.extension import JwtOnly

        return JwtOnly(settings.auth, settings.stores, app=settings.app, lookup=settings.lookup)

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        from fw.auth.modes.jwt_only.settings import jwt_advisories

        return jwt_advisories(values, sources)

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        from fw.auth.modes.jwt_only.settings import jwt_dev_environment

        return jwt_dev_environment(issuer)


JWT_ONLY = JwtOnlyMode()
