"""The framework's own choice keys: the loader refuses any other value, in every entry point."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fw
from fw.auth.settings import AuthSettings
from fw.cli import main as fw_main
from fw.errors import ConfigError
from fw.testing import configured

ROOT = Path(__file__).resolve().parents[2]
ADMISSIONS = "authenticated, claim, registered, existing"

CHOICES = [
    ("auth.mode", "oidc_only, oidc_passkey, passkey_only, oauth_only, jwt_only"),
    ("auth.backend", "rdb, dynamo, firestore"),
    ("session.backend", "rdb, cookie, redis, dynamo, firestore"),
    ("auth.protection.unauthenticated", "redirect, unauthorized"),
    ("auth.oidc.admission", ADMISSIONS),
    ("auth.oauth.admission", ADMISSIONS),
    ("auth.jwt.admission", "authenticated, claim, registered, or empty"),
    ("auth.oidc.claim.match", "any, all"),
    ("auth.oauth.claim.match", "any, all"),
    ("auth.jwt.claim.match", "any, all"),
    ("auth.oidc.logout_scope", "reconfirm, global"),
    ("auth.jwt.discovery", "oidc, oauth, manual"),
    ("auth.jwt.revocation.mode", "off, token, subject, both, or empty"),
    ("auth.jwt.revocation.on_unavailable", "refuse, admit"),
    ("auth.recovery.policy", "oidc, administrator, application, or empty"),
    ("auth.registration.policy", "disabled, oidc, invite, administrator, open, or empty"),
]


def option(key: str) -> str:
    return "--" + key.replace(".", "-")


@pytest.mark.parametrize(("key", "allowed"), CHOICES)
def test_each_fixed_set_framework_key_refuses_another_value_naming_the_allowed_ones(
    key: str, allowed: str
) -> None:
    with pytest.raises(ConfigError) as caught, configured(argv=[f"{option(key)}=bogus"]):
        pass
    assert caught.value.key == key
    assert str(caught.value) == (
        f"{key}: 'bogus' is not a choice; use one of: {allowed} (from option:{option(key)})"
    )


def test_keys_without_a_default_may_stay_unset_so_the_mode_rules_can_require_them() -> None:
    toml = '[auth.jwt]\nadmission = ""\nrevocation.mode = ""\n[auth.recovery]\npolicy = ""\n'
    with configured(toml=toml):
        auth = fw.config(AuthSettings)
    assert (auth.jwt.admission, auth.jwt.revocation.mode, auth.recovery.policy) == ("", "", "")


def test_fw_run_refuses_a_value_outside_the_choices_with_one_line(
    fresh: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        fw.run(fw.App(), argv=["--auth-enabled", "--auth-mode=magic"])
    assert exited.value.code == 1
    assert capsys.readouterr().err == (
        "fw: auth.mode: 'magic' is not a choice; use one of: oidc_only, oidc_passkey, passkey_only, "
        "oauth_only, jwt_only (from option:--auth-mode)\n"
    )


def test_fw_doctor_refuses_a_value_outside_the_choices_with_one_line(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTH_JWT_DISCOVERY", "webfinger")
    assert fw_main(["--project", str(ROOT), "doctor"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line == (
        "fw: auth.jwt.discovery: 'webfinger' is not a choice; use one of: oidc, oauth, manual "
        "(from env:AUTH_JWT_DISCOVERY)"
    )


# subprocess.run spelled out: its keyword arguments are all it shares with other tests' runs.
def test_an_app_under_plain_uvicorn_refuses_a_value_outside_the_choices_with_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {**os.environ, "SESSION_BACKEND": "memcached", "APP_ENV": "dev"}
    result = subprocess.run(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(ROOT), "examples.hello.app:app", "--port", "0"],
        cwd=str(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        "fw: session.backend: 'memcached' is not a choice; use one of: rdb, cookie, redis, dynamo, "
        "firestore (from env:SESSION_BACKEND)"
    ) in result.stderr
    assert "Traceback" not in result.stderr
    assert result.returncode != 0
