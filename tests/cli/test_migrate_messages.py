"""What ``fw migrate`` says: on a database a later release migrated (one line naming the database's
revision and this code's head, nothing applied), and where the release order puts it."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from fw.rdb.migrate import FRAMEWORK, VERSION_TABLE

from .generated import fw, generated

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\nmigrations = "migrations"\n'
    )
    (tmp_path / "shop.py").write_text("import fw\n\napp = fw.App()\n")
    (tmp_path / "migrations").mkdir()
    (tmp_path / "config.dev.toml").write_text('[middleware.rdb]\ndsn = "sqlite:///shop.sqlite3"\n')
    return tmp_path


def recorded(project: Path, table: str) -> list[str]:
    with sqlite3.connect(project / "shop.sqlite3") as database:
        return [row[0] for row in database.execute(f"SELECT version_num FROM {table}")]


def record(project: Path, table: str, revision: str) -> None:
    with sqlite3.connect(project / "shop.sqlite3") as database:
        database.execute(f"UPDATE {table} SET version_num = ?", (revision,))


def framework_head() -> str:
    [head] = ScriptDirectory.from_config(FRAMEWORK.config()).get_heads()
    return head


def test_a_database_a_later_release_migrated_is_named_with_both_revisions(project: Path) -> None:
    assert fw(project, "migrate").returncode == 0
    record(project, VERSION_TABLE, "fw_9999")
    done = fw(project, "migrate")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "fw: middleware.rdb.dsn = 'sqlite:///shop.sqlite3': the database is at framework revision fw_9999, "
        f"newer than this code (its head is {framework_head()}): it was migrated by a later release; run "
        "that release, or restore the database from before the upgrade\n"
    )
    assert "Can't locate revision" not in done.stderr
    assert recorded(project, VERSION_TABLE) == ["fw_9999"]


def test_an_application_revision_this_code_lacks_is_named_with_the_application_head(project: Path) -> None:
    written = fw(project, "migrate", "new", "add orders")
    assert written.returncode == 0, written.stderr
    head = re.search(r"migrations/(\w+)_add_orders\.py", written.stdout)
    assert head is not None, written.stdout
    assert fw(project, "migrate").returncode == 0
    assert recorded(project, "alembic_version") == [head.group(1)]
    record(project, "alembic_version", "0a1b2c3d4e5f")
    done = fw(project, "migrate")
    assert done.returncode == 1
    assert done.stderr == (
        f"fw: tool.fw.migrations = '{project / 'migrations'}': the database is at application revision "
        f"0a1b2c3d4e5f, newer than this code (its head is {head.group(1)}): it was migrated by a later "
        "release; run that release, or restore the database from before the upgrade\n"
    )


def test_doctor_before_migrate_says_to_run_fw_migrate(tmp_path: Path) -> None:
    project = generated(tmp_path, "shop", "--auth", "passkey_only")
    done = fw(project, "doctor")
    assert done.returncode == 1
    [finding] = [line for line in done.stdout.splitlines() if line.startswith("error:")]
    assert finding.endswith("is missing; run `fw migrate` to apply the framework migrations")
    assert fw(project, "migrate").returncode == 0
    assert fw(project, "doctor").returncode == 0


def test_the_release_steps_run_fw_migrate_before_fw_doctor() -> None:
    text = (DOCS / "deployment.md").read_text()
    steps = text[text.index("## A release, step by step") :]
    steps = steps[: steps.index("Start the workers")]
    assert steps.index("fw migrate`") < steps.index("APP_ENV=prod fw doctor")
