"""A rule every mode applies reads the same in every mode: one place decides it, one message explains it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from auth_jwt.settings import auth_settings, jwt_settings, mode_settings

from fw.auth import plugin
from fw.auth.settings import AuthSettings
from fw.errors import ConfigError, StartupError
from fw.testing import configured


def _defaults(_key: str) -> str:
    return "default"


def jwt_only(**jwt: Any) -> AuthSettings:
    return auth_settings(jwt_settings("https://issuer.example", **jwt))


def oidc_only(**oidc: Any) -> AuthSettings:
    auth = auth_settings(jwt_settings(""), mode="oidc_only")
    base = replace(
        auth.oidc,
        issuer="https://login.example",
        client_id="app",
        client_secret="s3cret",
        redirect_url="https://app.example/auth/callback",
    )
    return replace(auth, oidc=replace(base, **oidc))


def refusal(auth: AuthSettings) -> StartupError:
    with pytest.raises(StartupError) as refused:
        plugin.check(mode_settings(auth, sessions=True), _defaults)
    return refused.value


def test_both_helpers_make_settings_that_pass() -> None:
    for auth in (jwt_only(), oidc_only()):
        plugin.check(mode_settings(auth, sessions=True), _defaults)


@pytest.mark.parametrize(
    ("jwt", "oidc", "suffix"),
    [
        ({"identity_claim": ""}, {"identity_claim": ""}, "identity_claim"),
        ({"required_scopes": ["a b"]}, {"scopes": ["a b"]}, None),
        ({"admission": "claim"}, {"admission": "claim"}, "claim.path"),
    ],
    ids=["identity claim", "scope entry", "claim pointer"],
)
def test_the_same_mistake_gets_the_same_fix_in_every_mode(
    jwt: dict[str, Any], oidc: dict[str, Any], suffix: str | None
) -> None:
    in_jwt, in_oidc = refusal(jwt_only(**jwt)), refusal(oidc_only(**oidc))
    if suffix is not None:
        assert (in_jwt.key, in_oidc.key) == (f"auth.jwt.{suffix}", f"auth.oidc.{suffix}")
    assert in_jwt.value == in_oidc.value
    assert in_jwt.fix == in_oidc.fix


@pytest.mark.parametrize("table", ["jwt", "oidc"])
def test_an_unknown_admission_is_refused_by_the_loader_listing_the_tables_own_choices(table: str) -> None:
    with pytest.raises(ConfigError) as refused, configured(argv=[f"--auth-{table}-admission=everyone"]):
        pass
    offered = (
        "authenticated, claim, registered, or empty"
        if table == "jwt"
        else ("authenticated, claim, registered, existing")
    )
    assert str(refused.value) == (
        f"auth.{table}.admission: 'everyone' is not a choice; use one of: {offered} "
        f"(from option:--auth-{table}-admission)"
    )


@pytest.mark.parametrize("mode", [jwt_only, oidc_only], ids=["jwt_only", "oidc_only"])
@pytest.mark.parametrize("path", ["/auth\\login", "auth/login", "/a//b"])
def test_a_path_with_a_backslash_or_double_slash_is_refused_in_every_mode(mode: Any, path: str) -> None:
    error = refusal(replace(mode(), login_path=path))
    assert error.key == "auth.login_path"
    assert error.fix == "use a root-relative path such as /auth/login, without // or \\"


def test_existing_admission_is_offered_only_where_accounts_are_created() -> None:
    with pytest.raises(ConfigError) as refused, configured(argv=["--auth-jwt-admission=existing"]):
        pass
    assert refused.value.key == "auth.jwt.admission"
    assert refusal(oidc_only(admission="existing")).key == "auth.oidc.auto_provision"
    plugin.check(
        mode_settings(oidc_only(admission="existing", auto_provision=False), sessions=True), _defaults
    )
