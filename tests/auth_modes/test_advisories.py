"""Each mode's advisories: the risky settings ``fw doctor`` and the startup summary report for it.

The configuration pillar knows no auth mode: it reports what the configured mode finds, through
the advisory provider auth registers. These tests check that plumbing on every configuration
and each mode's findings one by one (an unknown mode never gets this far: the loader refuses it).
"""

from __future__ import annotations

import pytest

from fw import configuration
from fw.auth.modes import registry
from fw.configuration import registry as config_registry
from fw.configuration.advisory import Advisory
from fw.testing import configured

JWT = ["--auth-enabled", "--auth-mode=jwt_only"]
PROD = {"APP_ENV": "prod"}


def mode_findings(argv: list[str], env: dict[str, str]) -> tuple[list[Advisory], list[Advisory]]:
    """(what the configured mode reports, what the configuration pillar reports about [auth])."""
    with configured(argv=argv, env=env):
        everything = configuration.advisories()
        state = config_registry.state()
        assert state.resolved is not None
        found = registry.advisories(state.resolved.values, state.resolved.sources, state.app_env)
    return found, [advisory for advisory in everything if advisory.key.startswith("auth.")]


CASES = {
    "jwt admit": (
        [*JWT, "--auth-jwt-revocation-mode=token", "--auth-jwt-revocation-on_unavailable=admit"],
        {},
    ),
    "jwt refuse": ([*JWT, "--auth-jwt-revocation-mode=token"], {}),
    "jwt admit, revocation off": ([*JWT, "--auth-jwt-revocation-on_unavailable=admit"], {}),
    "oidc empty": (["--auth-enabled", "--auth-mode=oidc_only"], PROD),
    "oidc path-only": (["--auth-enabled", "--auth-oidc-redirect_url=/auth/callback"], PROD),
    "oidc absolute": (["--auth-enabled", "--auth-oidc-redirect_url=https://a.example/cb"], PROD),
    "oidc dev": (["--auth-enabled"], {"APP_ENV": "dev"}),
    "oidc_passkey": (["--auth-enabled", "--auth-mode=oidc_passkey"], PROD),
    "oauth_only": (["--auth-enabled", "--auth-mode=oauth_only"], PROD),
    "passkey_only": (["--auth-enabled", "--auth-mode=passkey_only"], PROD),
    "auth off": ([], PROD),
}


@pytest.mark.parametrize(("argv", "env"), CASES.values(), ids=CASES.keys())
def test_the_configuration_pillar_reports_exactly_the_configured_modes_auth_findings(
    argv: list[str], env: dict[str, str]
) -> None:
    found, expected = mode_findings(argv, env)
    assert found == expected


def test_jwt_only_reports_admitting_tokens_while_revocation_is_down_as_an_error() -> None:
    found, _ = mode_findings(CASES["jwt admit"][0], {})
    assert [(a.level, a.key) for a in found] == [("error", "auth.jwt.revocation.on_unavailable")]
    assert "(from option:--auth-jwt-revocation-on_unavailable)" in found[0].msg


@pytest.mark.parametrize(
    ("case", "key"),
    [("oidc empty", "auth.oidc.redirect_url"), ("oidc path-only", "auth.oidc.redirect_url")],
)
def test_a_browser_mode_reports_a_missing_or_path_only_redirect_url_outside_dev(case: str, key: str) -> None:
    found, _ = mode_findings(*CASES[case])
    assert [(a.level, a.key) for a in found] == [("error", key)]


def test_each_browser_mode_judges_the_redirect_url_of_its_own_table() -> None:
    found, _ = mode_findings(*CASES["oauth_only"])
    assert [a.key for a in found] == ["auth.oauth.redirect_url"]
    assert mode_findings(*CASES["passkey_only"])[0] == []
    assert mode_findings(*CASES["oidc dev"])[0] == []
