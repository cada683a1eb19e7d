"""Modes the specification names that this installation of fw does not provide yet.

Each still owns its tables, so a key of theirs set under another mode is refused as foreign and
the startup summary hides them; each still checks its required keys, so a configuration
written for it meets the refusal it would meet once the mode exists. Then startup refuses the
mode itself. When a mode is built, its package replaces its entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fw.auth.browser.rules import redirect_url_advisories
from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold
from fw.auth.modes.rules import check_credential, check_required
from fw.configuration.advisory import Advisory
from fw.errors import StartupError
from fw.extension import Extension
from fw.settings import AuthSettings

_OFFERED_NOT_AVAILABLE = Scaffold(offered=True)


def _no_dev_environment(issuer: DevIssuer) -> DevEnvironment | None:
    return None


def _no_required_keys(auth: AuthSettings) -> None:
    return None


@dataclass(frozen=True, slots=True)
class PlannedMode:
    """A browser mode known by name and tables, refused at startup as not available."""

    name: str
    tables: tuple[str, ...]
    #: Its required keys, checked as the mode itself will check them.
    checks: Callable[[AuthSettings], None] = _no_required_keys
    #: The table whose ``redirect_url`` the advisories look at (``""``: none).
    redirect_table: str = ""
    dev: Callable[[DevIssuer], DevEnvironment | None] = _no_dev_environment
    browser: bool = True
    scaffold: Scaffold = _OFFERED_NOT_AVAILABLE

    def check(self, settings: ModeSettings) -> None:
        self.checks(settings.auth)

    def extension(self, settings: ModeSettings) -> Extension:
        raise StartupError("auth.mode", self.name, "this mode is not available in this installation of fw")

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        return redirect_url_advisories(self.redirect_table, values, app_env) if self.redirect_table else []

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        return self.dev(issuer)


def _oauth_only(auth: AuthSettings) -> None:
    check_required(auth.oauth.provider, "auth.oauth.provider")
    check_credential(auth.oauth.client_id, "auth.oauth.client_id", "oauth_only")
    check_credential(auth.oauth.client_secret, "auth.oauth.client_secret", "oauth_only", secret=True)


OAUTH_ONLY = PlannedMode("oauth_only", ("oauth",), _oauth_only, redirect_table="auth.oauth")
