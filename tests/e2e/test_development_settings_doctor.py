"""``fw doctor`` under ``APP_ENV=prod`` refuses the development settings a laptop uses, naming the
key and the value, and passes the same project under ``APP_ENV=dev``.

Each run is the real command in a process of its own, on a project written to a temporary folder
whose ``config.{APP_ENV}.toml`` holds the ``[auth.oidc]`` table under test; the provider is the
development provider on loopback, so the ``dev`` run can reach it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from e2e.support import PYTHON, clean_env
from fw.testing import TestIdentityProvider


# subprocess.run spelled out: its keyword arguments are all it shares with other tests' runs.
def doctor(tmp_path: Path, app_env: str, oidc: str, client_secret: str, dsn: str) -> list[str]:
    """``fw doctor`` with ``oidc`` as the ``[auth.oidc]`` table of ``config.{app_env}.toml``: its
    exit status's verdict (``ok`` or ``refused``) first, then the lines it printed."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\n')
    (tmp_path / "shop.py").write_text("import fw\n\napp = fw.App()\n")
    (tmp_path / f"config.{app_env}.toml").write_text(
        f'[auth]\nenabled = true\nmode = "oidc_only"\n[auth.oidc]\n{oidc}'
        f'[session]\nenabled = true\n[middleware.rdb]\ndsn = "{dsn}"\n'
    )
    env = clean_env({"APP_ENV": app_env, "AUTH_OIDC_CLIENT_SECRET": client_secret})
    result = subprocess.run(
        [PYTHON, "-m", "fw.cli", "doctor"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return ["ok" if result.returncode == 0 else "refused", *result.stdout.splitlines()]


def laptop(idp: TestIdentityProvider) -> str:
    """The ``[auth.oidc]`` of a laptop signing in at the development provider."""
    return (
        f'issuer = "{idp.issuer}"\nclient_id = "{idp.client_id}"\nallow_loopback_http = true\n'
        'redirect_url = "http://localhost:8000/auth/callback"\n'
    )


def test_doctor_under_prod_refuses_allow_loopback_http_naming_the_key_and_value(
    tmp_path: Path, idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    verdict, *lines = doctor(tmp_path, "prod", laptop(idp), idp.client_secret, sqlite_dsn)
    assert verdict == "refused", lines
    [error] = [line for line in lines if line.startswith("error:")]
    assert error.startswith(
        "error: auth.oidc.allow_loopback_http = True: plain http on loopback is for development only, "
        "and APP_ENV is prod"
    )


def test_doctor_under_prod_refuses_a_plain_http_redirect_url_on_a_public_host(
    tmp_path: Path, sqlite_dsn: str
) -> None:
    oidc = (
        'issuer = "https://login.example"\nclient_id = "shop"\n'
        'redirect_url = "http://shop.example.com/auth/callback"\n'
    )
    verdict, *lines = doctor(tmp_path, "prod", oidc, "shop-client-secret", sqlite_dsn)
    assert verdict == "refused", lines
    [error] = [line for line in lines if line.startswith("error:")]
    assert error == (
        "error: auth.oidc.redirect_url = 'http://shop.example.com/auth/callback': "
        "must be https outside loopback development"
    )


# The dev twin of the prod tests above: the same laptop settings, the other verdict, under its own name.
def test_doctor_under_dev_accepts_the_laptop_settings(
    tmp_path: Path, idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    verdict, *lines = doctor(tmp_path, "dev", laptop(idp), idp.client_secret, sqlite_dsn)
    assert verdict == "ok", lines
    assert lines[-1] == "doctor: no problems found"
