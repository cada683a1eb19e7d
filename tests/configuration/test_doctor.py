"""Configuration findings reported by ``fw doctor``."""

from __future__ import annotations

from pathlib import Path

import pytest

import fw
from fw import configuration


@pytest.fixture
def workdir(fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("APP_ENV", "AUTH_ENABLED", "AUTH_MODE", "AUTH_OIDC_REDIRECT_URL", "MIDDLEWARE_RDB_DSN"):
        monkeypatch.delenv(name, raising=False)
    fw.set_config_load_options(working_dir=tmp_path, search_paths=["config.{env}.toml"])
    return tmp_path


def test_admitting_tokens_while_revocation_is_down_is_reported_at_error_level(workdir: Path) -> None:
    fw.parse_config(
        [
            "--auth-enabled",
            "--auth-mode=jwt_only",
            "--auth-jwt-revocation-mode=token",
            "--auth-jwt-revocation-on_unavailable=admit",
        ]
    )
    [line] = configuration.doctor_report()
    assert line.startswith("error: auth.jwt.revocation.on_unavailable = 'admit'")
    assert "option:--auth-jwt-revocation-on_unavailable" in line


@pytest.mark.parametrize(("url", "word"), [("", "is empty"), ("/auth/callback", "path-only")])
def test_an_empty_or_path_only_redirect_url_outside_dev_is_an_error(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, url: str, word: str
) -> None:
    monkeypatch.setenv("APP_ENV", "prod")
    (workdir / "config.prod.toml").write_text("")  # a file was found: no advisory about its absence
    fw.parse_config(["--auth-enabled", f"--auth-oidc-redirect_url={url}"])
    [line] = configuration.doctor_report()
    assert line.startswith("error: auth.oidc.redirect_url") and word in line


def test_the_redirect_url_check_is_off_in_dev_and_for_absolute_urls(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw.parse_config(["--auth-enabled", "--auth-oidc-redirect_url=/cb"])
    assert configuration.doctor_report() == []
    monkeypatch.setenv("APP_ENV", "prod")
    (workdir / "config.prod.toml").write_text("")  # a file was found: no advisory about its absence
    fw.parse_config(["--auth-enabled", "--auth-oidc-redirect_url=https://app.example/cb"])
    assert configuration.doctor_report() == []


def test_a_credential_written_into_the_file_is_warned_about_masked(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DB_PASSWORD", "pw")
    (workdir / "config.dev.toml").write_text(
        '[middleware.rdb]\ndsn = "postgresql://fw:hunter2@db:5432/app?sslmode=require"\n'
        '[session.keyring]\nsecret = "${DB_PASSWORD}"\n'
    )
    fw.parse_config([])
    [line] = configuration.doctor_report()
    assert line.startswith("warning: middleware.rdb.dsn = postgresql://*****@db:5432/app")
    assert "hunter2" not in line and "config.dev.toml:2" in line
