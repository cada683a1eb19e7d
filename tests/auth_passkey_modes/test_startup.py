"""Startup errors of the passkey modes: one line naming the key, the value and the fix."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

import fw
from auth_passkey_modes.support import oidc_passkey_toml, passkey_only_toml
from fw.testing import configured


def refusal(toml: str, env: dict[str, str] | None = None) -> fw.StartupError:
    with configured(toml=toml, env=env), pytest.raises(fw.StartupError) as caught, TestClient(fw.App()):
        pass
    return caught.value


def passkey_only_error(env: dict[str, str] | None = None, **auth: Any) -> fw.StartupError:
    return refusal(passkey_only_toml("sqlite:///:memory:", **auth), env)


def test_passkey_only_refuses_an_openid_issuer_set_in_the_environment() -> None:
    error = passkey_only_error({"AUTH_OIDC_ISSUER": "https://login.example"})
    assert error.key == "auth.oidc.issuer"
    assert "does not read it" in error.fix and "env:AUTH_OIDC_ISSUER" in error.fix


@pytest.mark.parametrize(
    ("passkey", "key"),
    [
        ({"rp_id": "127.0.0.1"}, "auth.passkey.rp_id"),
        ({"rp_id": "[::1]"}, "auth.passkey.rp_id"),
        ({"rp_id": ""}, "auth.passkey.rp_id"),
        ({"rp_name": ""}, "auth.passkey.rp_name"),
        ({"origins": []}, "auth.passkey.origins"),
        ({"origins": ["http://example.com"], "rp_id": "example.com"}, "auth.passkey.origins"),
        ({"origins": ["https://other.example"]}, "auth.passkey.origins"),
        ({"origins": ["http://localhost/"]}, "auth.passkey.origins"),
        ({"path": "//x"}, "auth.passkey.path"),
    ],
)
def test_a_relying_party_ceremonies_cannot_work_with_is_a_startup_error(
    passkey: dict[str, Any], key: str
) -> None:
    error = passkey_only_error(passkey=passkey)
    assert error.key == key


def test_an_ip_literal_rp_id_names_the_fix() -> None:
    error = passkey_only_error(passkey={"rp_id": "127.0.0.1"})
    assert "IP address" in error.fix and "localhost" in error.fix


def test_passkey_only_needs_a_recovery_policy_and_refuses_oidc_recovery() -> None:
    assert passkey_only_error(recovery={"policy": ""}).key == "auth.recovery.policy"
    error = passkey_only_error(recovery={"policy": "oidc"})
    assert error.key == "auth.recovery.policy" and "administrator or application" in error.fix


def test_passkey_only_needs_an_explicit_registration_policy() -> None:
    error = passkey_only_error(registration={"policy": ""})
    assert error.key == "auth.registration.policy" and "required" in error.fix
    assert passkey_only_error(registration={"policy": "oidc"}).key == "auth.registration.policy"


@pytest.mark.parametrize(
    ("bootstrap", "key", "received"),
    [
        ({"issue_ttl": "0s"}, "auth.bootstrap.issue_ttl", "0s"),
        ({"enrollment_ttl": "-90s"}, "auth.bootstrap.enrollment_ttl", "-1m30s"),
        ({"max_attempts": 0}, "auth.bootstrap.max_attempts", 0),
    ],
)
def test_bootstrap_lifetimes_and_attempts_must_be_positive_and_a_refusal_names_the_value(
    bootstrap: dict[str, Any], key: str, received: object
) -> None:
    error = passkey_only_error(bootstrap=bootstrap)
    assert error.key == key and error.value == received and f"{key} = {received!r}: " in str(error)


def oidc_passkey_error(**auth: Any) -> fw.StartupError:
    toml = oidc_passkey_toml("https://login.example", "app", "sqlite:///:memory:", **auth)
    return refusal(toml, {"AUTH_OIDC_CLIENT_SECRET": "s3cret"})


def test_oidc_passkey_refuses_to_start_until_the_recovery_policy_is_set() -> None:
    error = oidc_passkey_error(recovery={"policy": ""})
    assert error.key == "auth.recovery.policy" and "required" in error.fix


def test_oidc_passkey_registers_passkeys_through_the_provider_or_not_at_all() -> None:
    error = oidc_passkey_error(registration={"policy": "open"})
    assert error.key == "auth.registration.policy" and "oidc, disabled" in error.fix


def test_oidc_passkey_refuses_bootstrap_settings() -> None:
    error = oidc_passkey_error(bootstrap={"max_attempts": 3})
    assert error.key == "auth.bootstrap.max_attempts" and "passkey_only" in error.fix
