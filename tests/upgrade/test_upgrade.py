"""Upgrading a deployed project to this fw keeps its people signed in, known and revoked.

``fixture/`` is a ``passkey_only`` project written by an earlier fw, its SQLite database migrated
only to framework revision ``fw_0002`` and holding a session, an account and a token revocation
written by that fw's own stores (``make_fixture.py`` remakes it and says how). Each test copies
it and follows docs/upgrading.md with this fw, in fresh processes as an operator would.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory

from fw.rdb.migrate import FRAMEWORK

#: Each test runs fw several times in fresh interpreters.
pytestmark = pytest.mark.timeout(600)

FIXTURE = Path(__file__).resolve().parent / "fixture"
ROWS = json.loads((FIXTURE / "rows.json").read_text(encoding="utf-8"))
FW = [sys.executable, "-c", "import sys; from fw.cli import main; sys.exit(main(sys.argv[1:]))"]

#: Reads the three records back as a management script would: the project's configuration
#: parsed, the configured stores opened, the public revocation call; prints one JSON object.
READ_BACK = r"""
import asyncio, json, sys

import fw
from fw.auth.configured import configured_stores
from fw.auth.stores.select import open_auth_store, open_session_store
from fw.auth.sessions.settings import SessionSettings
from fw.auth.settings import AuthSettings

rows = json.loads(sys.argv[1])
fw.parse_config([])


async def read() -> dict:
    middleware = configured_stores()
    store = await open_auth_store(
        fw.config(AuthSettings).backend, middleware, ["accounts", "revocations", "sessions"]
    )
    sessions = open_session_store(fw.config(SessionSettings), store, middleware)
    try:
        record = await sessions.load(rows["session_token"])
        account = await store.accounts.get(rows["account_id"])
    finally:
        await sessions.close()
        await store.close()
    revoked, stamp = await fw.auth.token_revoked(rows["revoked_issuer"], rows["revoked_jti"])
    never_revoked, _ = await fw.auth.token_revoked(rows["revoked_issuer"], "another-token")
    return {
        "session": record,
        "account": None if account is None else {
            "id": account.account_id, "name": account.display_name, "email": account.email,
            "active": account.active,
        },
        "revoked": revoked,
        "stamp": None if stamp is None else stamp.isoformat(),
        "never_revoked": never_revoked,
    }


print(json.dumps(asyncio.run(read())))
"""


def _run(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AUTH_", "APP_"))}
    return subprocess.run(
        list(arguments), cwd=project, env=env, capture_output=True, text=True, timeout=180, check=False
    )


def _fw(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return _run(project, *FW, *arguments)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "shop"
    shutil.copytree(FIXTURE, copy)
    return copy


def _framework_revision(project: Path) -> str:
    with sqlite3.connect(project / ROWS["database"]) as connection:
        (revision,) = connection.execute("SELECT version_num FROM fw_alembic_version").fetchone()
    return str(revision)


def test_the_fixture_database_is_at_an_earlier_framework_revision(project: Path) -> None:
    assert _framework_revision(project) == ROWS["revision"] == "fw_0002"


def test_doctor_before_fw_migrate_names_the_missing_tables_and_fw_migrate(project: Path) -> None:
    doctor = _fw(project, "doctor")
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert "fw_ceremonies" in doctor.stdout + doctor.stderr
    assert "run `fw migrate`" in doctor.stdout + doctor.stderr


def test_an_upgrade_keeps_the_session_the_account_and_the_revocation(project: Path) -> None:
    generated = _fw(project, "generate")
    assert generated.returncode == 0, generated.stdout + generated.stderr
    migrated = _fw(project, "migrate")
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    assert "applied fw_0003" in migrated.stdout and "applied fw_0004" in migrated.stdout
    assert _framework_revision(project) != ROWS["revision"]

    read = _run(project, sys.executable, "-c", READ_BACK, json.dumps(ROWS))
    assert read.returncode == 0, read.stdout + read.stderr
    found: dict[str, Any] = json.loads(read.stdout)
    assert found["session"]["account_id"] == ROWS["account_id"]
    assert (found["session"]["display_name"], found["session"]["method"]) == ("Ada Lovelace", "passkey")
    assert found["account"] == {
        "id": ROWS["account_id"],
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "active": True,
    }
    assert found["revoked"] is True and found["stamp"].startswith("2026-")
    assert found["never_revoked"] is False

    doctor = _fw(project, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "doctor: no problems found" in doctor.stdout


def test_fw_migrate_a_second_time_applies_nothing(project: Path) -> None:
    assert _fw(project, "migrate").returncode == 0
    again = _fw(project, "migrate")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "applied" not in again.stdout
    assert "framework tables are up to date" in again.stdout


def test_fw_migrate_on_a_database_a_later_release_migrated_names_both_revisions_in_one_line(
    project: Path,
) -> None:
    assert _fw(project, "migrate").returncode == 0
    with sqlite3.connect(project / ROWS["database"]) as connection:  # as a later fw would leave it
        connection.execute("UPDATE fw_alembic_version SET version_num = 'fw_9999'")
    refused = _fw(project, "migrate")
    assert refused.returncode == 1
    assert refused.stdout == "" and "Traceback" not in refused.stderr
    (line,) = refused.stderr.splitlines()
    (head,) = ScriptDirectory.from_config(FRAMEWORK.config()).get_heads()
    assert line.startswith("fw: ") and "fw_9999" in line and f"its head is {head}" in line, line
    assert _framework_revision(project) == "fw_9999"
