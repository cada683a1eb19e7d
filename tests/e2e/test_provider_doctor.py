"""``fw doctor`` contacts the identity provider or issuer the way serving will: discovery and keys,
by the same rules. A certificate nobody trusts, an unreachable issuer and a discovery document
naming an endpoint fw must not use are each an ``error:`` line, and the certificate error names
``SSL_CERT_FILE``, which is how a private certificate authority is trusted.

Each run is the real command in a process of its own, on a project written to a temporary folder,
against a provider on loopback (:class:`naming_issuer.NamingIssuer`, over http, or over https
with a self-signed certificate made by the test); ``idp.example.com`` is only data in a document.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from auth_oidc.support import to_toml
from auth_passkey_modes.support import oidc_passkey_toml
from naming_issuer import NamingIssuer, TlsFiles, self_signed

from e2e.support import PYTHON, clean_env

ELSEWHERE = "http://idp.example.com"
METADATA = "/.well-known/openid-configuration"


#: Where the browser comes back to; the App is never served here, so nothing listens there.
CALLBACK = "https://shop.example.com/auth/callback"


def oidc_only_toml(issuer: str, dsn: str) -> str:
    oidc = {
        "issuer": issuer,
        "client_id": "shop",
        "redirect_url": CALLBACK,
        "allow_loopback_http": issuer.startswith("http://"),
    }
    tables = {
        "auth": {"enabled": True, "mode": "oidc_only", "oidc": oidc},
        "session": {"enabled": True, "backend": "rdb"},
        "middleware": {"rdb": {"dsn": dsn}},
    }
    return to_toml(tables)


def jwt_only_toml(issuer: str, dsn: str) -> str:
    jwt = {
        "issuer": issuer,
        "audience": ["api"],
        "algorithms": ["RS256"],
        "admission": "authenticated",
        "max_token_lifetime": "1h",
        "allow_loopback_http": issuer.startswith("http://"),
        "revocation": {"mode": "off"},
    }
    return to_toml(
        {"auth": {"enabled": True, "mode": "jwt_only", "jwt": jwt}, "middleware": {"rdb": {"dsn": dsn}}}
    )


CONFIGURATIONS = {
    "oidc_only": oidc_only_toml,
    "oidc_passkey": lambda issuer, dsn: oidc_passkey_toml(
        issuer, "shop", dsn, oidc={"redirect_url": CALLBACK}
    ),
    "jwt_only": jwt_only_toml,
}


def doctor(
    tmp_path: Path, mode: str, issuer: str, dsn: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``fw doctor`` in a project whose App signs in (or verifies tokens) at ``issuer``."""
    project = tmp_path / "shop"
    project.mkdir(exist_ok=True)
    (project / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\n')
    (project / "shop.py").write_text("import fw\n\napp = fw.App()\n")
    (project / "config.dev.toml").write_text(CONFIGURATIONS[mode](issuer, dsn))
    secret = {} if mode == "jwt_only" else {"AUTH_OIDC_CLIENT_SECRET": "s3cret"}
    environment = clean_env({"APP_ENV": "dev", **secret, **(env or {})})
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        if name not in (env or {}):
            environment.pop(name, None)
    return subprocess.run(
        [PYTHON, "-m", "fw.cli", "doctor"],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert "Traceback" not in result.stderr, result.stderr
    return [line for line in result.stdout.splitlines() if line.startswith("error")]


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def issuer() -> Iterator[NamingIssuer]:
    with NamingIssuer() as running:
        yield running


@pytest.fixture
def tls_issuer(tls: TlsFiles) -> Iterator[NamingIssuer]:
    with NamingIssuer(tls=tls) as running:
        yield running


@pytest.mark.parametrize("mode", ["oidc_only", "oidc_passkey"])
def test_doctor_fetches_the_providers_discovery_and_keys_and_finds_no_problem(
    tmp_path: Path, sqlite_dsn: str, issuer: NamingIssuer, mode: str
) -> None:
    result = doctor(tmp_path, mode, issuer.url, sqlite_dsn)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("doctor: no problems found")
    assert issuer.requests[METADATA] == 1 and issuer.requests["/jwks.json"] == 1


# Alike in shape to the test above (a doctor run and its verdict); the issuer and the verdict differ.
@pytest.mark.parametrize("mode", ["oidc_only", "jwt_only"])
def test_doctor_names_ssl_cert_file_for_a_certificate_nobody_trusts(
    tmp_path: Path, sqlite_dsn: str, tls_issuer: NamingIssuer, mode: str
) -> None:
    result = doctor(tmp_path, mode, tls_issuer.url, sqlite_dsn)
    assert result.returncode == 1, result.stdout + result.stderr
    [error] = errors(result)
    key = "auth.jwt.issuer" if mode == "jwt_only" else "auth.oidc.issuer"
    assert error.startswith(f"error: {key} = '{tls_issuer.url}'")
    assert f"{tls_issuer.url}{METADATA} could not be fetched" in error
    assert "CERTIFICATE_VERIFY_FAILED" in error
    assert "the PEM bundle SSL_CERT_FILE names" in error and "REQUESTS_CA_BUNDLE is not read" in error


@pytest.mark.parametrize("mode", ["oidc_only", "jwt_only"])
def test_doctor_passes_once_ssl_cert_file_names_the_private_certificate(
    tmp_path: Path, sqlite_dsn: str, tls: TlsFiles, tls_issuer: NamingIssuer, mode: str
) -> None:
    result = doctor(tmp_path, mode, tls_issuer.url, sqlite_dsn, {"SSL_CERT_FILE": str(tls.certificate)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert tls_issuer.requests[METADATA] == 1 and tls_issuer.requests["/jwks.json"] == 1


@pytest.mark.parametrize("mode", ["oidc_only", "oidc_passkey", "jwt_only"])
def test_doctor_reports_an_issuer_that_cannot_be_reached(
    tmp_path: Path, sqlite_dsn: str, closed_loopback_url: str, mode: str
) -> None:
    result = doctor(tmp_path, mode, closed_loopback_url, sqlite_dsn)
    assert result.returncode == 1, result.stdout + result.stderr
    [error] = errors(result)
    assert f"{closed_loopback_url}{METADATA} could not be fetched (ConnectError" in error
    assert "SSL_CERT_FILE" not in error


@pytest.mark.parametrize("mode", ["oidc_only", "oidc_passkey", "jwt_only"])
def test_doctor_names_each_endpoint_the_discovery_document_names_that_fw_must_not_use(
    tmp_path: Path, sqlite_dsn: str, issuer: NamingIssuer, mode: str
) -> None:
    issuer.names["authorization_endpoint"] = f"{ELSEWHERE}/auth"
    issuer.names["token_endpoint"] = f"{ELSEWHERE}/token"
    result = doctor(tmp_path, mode, issuer.url, sqlite_dsn)
    assert result.returncode == 1, result.stdout + result.stderr
    [error] = errors(result)
    assert f"authorization_endpoint '{ELSEWHERE}/auth', which must be https" in error
    assert f"token_endpoint '{ELSEWHERE}/token', which must be https" in error
    assert issuer.requests["/jwks.json"] == 0
