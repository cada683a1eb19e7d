"""``fw doctor`` (and ``--fix``) on a project whose auth records and sessions live in DynamoDB or
Firestore: a missing table, a table without TTL and a database not in Datastore mode are each one
``error:`` line naming the key and the command that fixes it; ``--fix`` creates the DynamoDB table
and its TTL; Firestore's TTL policies, which no API reads, are named as a warning.

Each run is the real command in a process of its own, on a project written to a temporary folder,
signing in at a provider on loopback that doctor contacts once the stores pass.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import StoreBackend, store_backend_for
from naming_issuer import NamingIssuer
from stores.conftest import create_table_without_ttl

from e2e.support import PYTHON, clean_env
from fw.auth.stores.dynamo import table_name
from fw.auth.stores.engines.dynamo import DynamoSettings
from fw.auth.stores.engines.firestore import FirestoreSettings
from fw.auth.stores.select import middleware_settings

#: Where a project that fails its store checks signs in: doctor stops before contacting it.
UNCONTACTED = "http://127.0.0.1:9"
#: oidc_only; doctor fetches the provider's discovery and keys once the startup checks pass.
OIDC = {
    "APP_ENV": "dev",
    "AUTH_ENABLED": "true",
    "AUTH_MODE": "oidc_only",
    "AUTH_OIDC_CLIENT_ID": "shop",
    "AUTH_OIDC_CLIENT_SECRET": "s3cret",
    "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true",
    "SESSION_ENABLED": "true",
}


@pytest.fixture(scope="module")
def provider() -> Iterator[NamingIssuer]:
    with NamingIssuer() as running:
        yield running


def doctor(
    tmp_path: Path, store: StoreBackend, *args: str, issuer: str = UNCONTACTED
) -> subprocess.CompletedProcess[str]:
    """``fw doctor ARGS`` in a project whose App keeps everything in ``store`` and signs in at ``issuer``."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\n')
    (tmp_path / "shop.py").write_text("import fw\n\napp = fw.App()\n")
    return subprocess.run(
        [PYTHON, "-m", "fw.cli", "doctor", *args],
        cwd=tmp_path,
        env=clean_env({**OIDC, "AUTH_OIDC_ISSUER": issuer, **store.env(sessions=True)}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def tableless(dynamo_endpoint: str) -> StoreBackend:
    """DynamoDB whose table was never created."""
    settings = DynamoSettings("us-east-1", dynamo_endpoint, f"fw_doctor_{secrets.token_hex(4)}_")
    return StoreBackend("dynamo", "dynamo", middleware_settings(dynamo=settings))


def test_doctor_names_a_missing_dynamodb_table_and_the_commands_that_create_it(
    tmp_path: Path, tableless: StoreBackend
) -> None:
    result = doctor(tmp_path, tableless)
    assert result.returncode == 1, result.stdout + result.stderr
    [error] = [line for line in result.stdout.splitlines() if line.startswith("error")]
    table = table_name(tableless.dynamo)
    assert "middleware.dynamo.table_prefix" in error and f"DynamoDB table {table} does not exist" in error
    assert "`fw migrate`" in error and "`fw doctor --fix`" in error
    assert "Traceback" not in result.stderr


def test_doctor_fix_creates_the_table_with_ttl_and_then_finds_no_problem(
    tmp_path: Path, tableless: StoreBackend, provider: NamingIssuer
) -> None:
    fixed = doctor(tmp_path, tableless, "--fix", issuer=provider.url)
    table = table_name(tableless.dynamo)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert f"fixed: created DynamoDB table {table}" in fixed.stdout
    assert f"fixed: enabled TTL on {table}.fw_ttl" in fixed.stdout
    assert fixed.stdout.rstrip().endswith("doctor: no problems found")
    again = doctor(tmp_path, tableless, issuer=provider.url)
    assert again.returncode == 0 and "error" not in again.stdout


def test_doctor_names_a_table_without_ttl(tmp_path: Path, tableless: StoreBackend) -> None:
    asyncio.run(create_table_without_ttl(tableless.dynamo))
    result = doctor(tmp_path, tableless)
    assert result.returncode == 1
    [error] = [line for line in result.stdout.splitlines() if line.startswith("error")]
    assert "has no TTL on `fw_ttl`" in error and "`fw doctor --fix`" in error


def test_doctor_names_a_firestore_database_in_native_mode_and_the_command_creating_one(
    tmp_path: Path, firestore_native_emulator: str
) -> None:
    native = FirestoreSettings("shop-project", "", firestore_native_emulator)
    result = doctor(tmp_path, StoreBackend("firestore", "firestore", middleware_settings(firestore=native)))
    assert result.returncode == 1
    [error] = [line for line in result.stdout.splitlines() if line.startswith("error")]
    assert "middleware.firestore.database" in error and "not in Datastore mode" in error
    assert (
        "gcloud firestore databases create --database=NEW_DATABASE_ID --type=datastore-mode "
        "--location=LOCATION --project=shop-project"
    ) in error


def test_doctor_on_firestore_in_datastore_mode_passes_and_names_the_ttl_policies(
    tmp_path: Path, request: pytest.FixtureRequest, provider: NamingIssuer
) -> None:
    store = store_backend_for("firestore", request)
    result = doctor(tmp_path, store, issuer=provider.url)
    assert result.returncode == 0, result.stdout + result.stderr
    database = store.firestore.database
    for kind in ("FwSession", "FwCeremony", "FwRevocation", "FwBootstrap"):
        assert (
            f"--collection-group={kind} --enable-ttl --project=fw-test --database={database}" in result.stdout
        )
    # The TTL policies are a standing warning: fw cannot see them, so it names them every time.
    assert result.stdout.rstrip().endswith("doctor: no errors; 1 warning above")
