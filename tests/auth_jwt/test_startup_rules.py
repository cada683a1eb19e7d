"""Startup refusals: required [auth.jwt] keys, foreign settings, paths, issuer transport, discovery."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from fw.auth import plugin
from fw.auth.modes.rules import SourceOf
from fw.auth.plugin import Refused, build_extension
from fw.auth.settings import AuthSettings, Claim
from fw.errors import StartupError
from fw.testing.issuer import LocalIssuer

from .conftest import serving
from .settings import auth_settings, jwt_settings, mode_settings, revocation

ISSUER = "https://issuer.example"


def _defaults(_key: str) -> str:
    return "default"


def _refusal(settings: AuthSettings, source_of: SourceOf = _defaults) -> StartupError:
    with pytest.raises(StartupError) as refused:
        plugin.check(mode_settings(settings), source_of)
    return refused.value


@pytest.mark.parametrize(
    ("key", "override"),
    [
        ("auth.jwt.issuer", {"issuer": ""}),
        ("auth.jwt.audience", {"audience": []}),
        ("auth.jwt.algorithms", {"algorithms": []}),
        ("auth.jwt.admission", {"admission": ""}),
        ("auth.jwt.max_token_lifetime", {"max_token_lifetime": timedelta(0)}),
        ("auth.jwt.revocation.mode", {"revocation": revocation("")}),
    ],
)
def test_each_missing_required_jwt_setting_is_a_startup_error_naming_it(
    key: str, override: dict[str, object]
) -> None:
    error = _refusal(auth_settings(replace(jwt_settings(ISSUER), **override)))
    assert error.key == key
    assert "required" in error.fix


@pytest.mark.parametrize(
    ("key", "override", "received"),
    [
        ("auth.jwt.max_token_lifetime", {"max_token_lifetime": timedelta(0)}, "0s"),
        ("auth.jwt.max_token_lifetime", {"max_token_lifetime": timedelta(seconds=-90)}, "-1m30s"),
        (
            "auth.jwt.revocation.max_propagation_delay",
            {"revocation": revocation("token", delay=timedelta(seconds=-1))},
            "-1s",
        ),
    ],
)
def test_a_refused_duration_is_named_as_the_configuration_writes_it(
    key: str, override: dict[str, object], received: str
) -> None:
    error = _refusal(auth_settings(replace(jwt_settings(ISSUER), **override)))
    assert error.key == key and error.value == received
    assert f"{key} = {received!r}: " in str(error)


def test_a_complete_jwt_only_configuration_passes_the_table_check() -> None:
    plugin.check(mode_settings(auth_settings(jwt_settings(ISSUER))), _defaults)


def test_a_setting_of_another_mode_set_by_a_source_is_refused() -> None:
    settings = auth_settings(jwt_settings(ISSUER))
    settings = replace(settings, oidc=replace(settings.oidc, issuer="https://login.example"))

    def source_of(key: str) -> str:
        return "env:AUTH_OIDC_ISSUER" if key == "auth.oidc.issuer" else "default"

    error = _refusal(settings, source_of)
    assert error.key == "auth.oidc.issuer"
    assert "env:AUTH_OIDC_ISSUER" in error.fix
    assert "jwt_only" in error.fix


def test_a_jwt_setting_is_foreign_to_a_browser_mode() -> None:
    settings = replace(auth_settings(jwt_settings(ISSUER)), mode="passkey_only")

    def source_of(key: str) -> str:
        return "file:config.dev.toml:7" if key == "auth.jwt.issuer" else "default"

    assert _refusal(settings, source_of).key == "auth.jwt.issuer"


def test_browser_session_settings_are_foreign_to_jwt_only() -> None:
    def source_of(key: str) -> str:
        return "option:--auth.session.ttl" if key == "auth.session.ttl" else "default"

    error = _refusal(auth_settings(jwt_settings(ISSUER)), source_of)
    assert error.key == "auth.session.ttl" and error.value == "24h0m0s"  # as the configuration writes it


@pytest.mark.parametrize("issuer", ["http://issuer.example", "ftp://issuer.example", "issuer.example", ""])
def test_a_non_https_issuer_is_refused(issuer: str) -> None:
    settings = auth_settings(replace(jwt_settings(ISSUER), issuer=issuer))
    assert _refusal(settings).key == "auth.jwt.issuer"


def test_a_loopback_http_issuer_needs_allow_loopback_http() -> None:
    plain = auth_settings(
        replace(jwt_settings(ISSUER), issuer="http://127.0.0.1:9000", allow_loopback_http=False)
    )
    assert "allow_loopback_http" in _refusal(plain).fix
    allowed = auth_settings(jwt_settings("http://localhost:9000"))
    plugin.check(mode_settings(allowed), _defaults)


def test_allow_loopback_http_is_refused_for_a_remote_issuer() -> None:
    settings = auth_settings(replace(jwt_settings(ISSUER), allow_loopback_http=True))
    assert _refusal(settings).key == "auth.jwt.allow_loopback_http"


@pytest.mark.parametrize("alg", ["none", "HS256", "HS512", "RSA-OAEP", "rs256"])
def test_unusable_algorithms_are_refused(alg: str) -> None:
    error = _refusal(auth_settings(jwt_settings(ISSUER, algorithms=["RS256", alg])))
    assert error.key == "auth.jwt.algorithms"
    assert error.value == alg


@pytest.mark.parametrize(
    ("key", "override"),
    [
        ("auth.jwt.claim.path", {"admission": "claim"}),
        ("auth.jwt.claim.path", {"admission": "claim", "claim": Claim("groups", ["a"], "any")}),
        ("auth.jwt.claim.values", {"admission": "claim", "claim": Claim("/groups", [], "any")}),
        ("auth.jwt.jwks_uri", {"discovery": "manual"}),
        ("auth.jwt.jwks_uri", {"discovery": "manual", "jwks_uri": "https://keys.example.org/jwks"}),
        ("auth.jwt.jwks_uri", {"jwks_uri": "https://issuer.example/jwks"}),
        ("auth.jwt.identity_claim", {"identity_claim": ""}),
        ("auth.jwt.required_scopes", {"required_scopes": ["orders.read orders.write"]}),
        ("auth.jwt.required_scopes", {"required_scopes": [""]}),
        ("auth.jwt.audience", {"audience": ["api", ""]}),
    ],
)
def test_invalid_jwt_values_are_refused_naming_the_key(key: str, override: dict[str, object]) -> None:
    # Values outside a key's choices (admission, claim.match, discovery, revocation.mode and
    # on_unavailable) never get this far: the loader refuses them (tests/configuration).
    assert _refusal(auth_settings(replace(jwt_settings(ISSUER), **override))).key == key


@pytest.mark.parametrize(
    ("field", "value"),
    [("login_path", "auth/login"), ("callback_path", "//evil.example/cb"), ("logout_path", "/a//b")],
)
def test_paths_must_be_root_relative_without_double_slashes(field: str, value: str) -> None:
    settings = replace(auth_settings(jwt_settings(ISSUER)), **{field: value})
    assert _refusal(settings).key == f"auth.{field}"


@pytest.mark.parametrize("pattern", ["api/", "//api", "/api/{id"])
def test_protection_patterns_must_be_usable(pattern: str) -> None:
    assert _refusal(auth_settings(jwt_settings(ISSUER), include=[pattern])).key == "auth.protection.include"


def test_an_unknown_mode_is_refused() -> None:
    settings = replace(auth_settings(jwt_settings(ISSUER)), mode="magic")
    assert _refusal(settings).key == "auth.mode"


def test_browser_modes_have_their_required_keys_too() -> None:
    settings = replace(auth_settings(jwt_settings(ISSUER)), mode="oidc_only")
    assert _refusal(settings, lambda key: "default").key == "auth.oidc.issuer"
    settings = replace(auth_settings(jwt_settings(ISSUER)), mode="oauth_only")
    assert _refusal(settings, lambda key: "default").key == "auth.oauth.provider"


def test_auth_disabled_mounts_nothing() -> None:
    settings = auth_settings(jwt_settings(""), enabled=False)
    assert build_extension(mode_settings(settings), _defaults) is None


async def test_an_invalid_configuration_makes_the_app_refuse_to_start() -> None:
    extension = build_extension(mode_settings(auth_settings(jwt_settings(""))), _defaults)
    assert isinstance(extension, Refused)
    assert list(extension.middleware()) == []
    with pytest.raises(StartupError) as refused:
        await extension.startup()
    assert refused.value.key == "auth.jwt.issuer"


async def test_an_unreachable_issuer_at_startup_is_reported_clearly() -> None:
    with LocalIssuer() as issuer:
        url = issuer.url
    with pytest.raises(StartupError) as refused:
        async with serving(auth_settings(jwt_settings(url))):
            pass
    assert refused.value.key == "auth.jwt.issuer"
    assert "cannot be loaded" in str(refused.value)
    assert "/.well-known/openid-configuration" in str(refused.value)


async def test_metadata_naming_another_issuer_is_refused(issuer: LocalIssuer) -> None:
    with pytest.raises(StartupError) as refused:
        async with serving(auth_settings(jwt_settings(issuer.url + "/"))):
            pass
    assert "must match exactly" in str(refused.value)


async def test_an_issuer_answering_errors_at_startup_is_reported(issuer: LocalIssuer) -> None:
    issuer.available = False
    with pytest.raises(StartupError) as refused:
        async with serving(auth_settings(jwt_settings(issuer.url))):
            pass
    assert "HTTP 503" in str(refused.value)
