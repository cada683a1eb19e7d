"""``fw migrate``: the framework's chain, then the application's own Alembic revisions.

Every test runs on the embedded SQLite store and on a fresh PostgreSQL database.
"""

from __future__ import annotations

import asyncio
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from sqlalchemy import inspect, text

from fw import configuration
from fw.auth.stores.engines.rdb import RdbSettings
from fw.cli import main as fw_command
from fw.errors import StartupError
from fw.rdb import create_engine
from fw.rdb.migrate import APP_VERSION_TABLE, VERSION_TABLE, application_chain, upgrade

_FRESH = f"fw_test_jwt_migrate_{os.getpid()}"


async def _recreate(admin_dsn: str, name: str, *, drop_only: bool = False) -> str:
    import asyncpg

    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    parts = urlsplit(admin_dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database nothing was ever applied to."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'app.sqlite3'}"
        return
    admin = str(request.getfixturevalue("postgres_dsn"))
    yield asyncio.run(_recreate(admin, _FRESH))
    asyncio.run(_recreate(admin, _FRESH, drop_only=True))


REVISION = '''\
"""{doc}"""

import sqlalchemy as sa
from alembic import op

revision = {revision!r}
down_revision = {down!r}
branch_labels = None
depends_on = None


def upgrade() -> None:
{body}


def downgrade() -> None:
    pass
'''


def _revision(folder: Path, revision: str, down: str | None, doc: str, body: str) -> None:
    folder.mkdir(exist_ok=True)
    source = REVISION.format(doc=doc, revision=revision, down=down, body=textwrap.indent(body, "    "))
    (folder / f"{revision}.py").write_text(source)


def _project(root: Path, migrations: str | None = "migrations") -> Path:
    setting = "" if migrations is None else f"migrations = {migrations!r}\n"
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "shop"\n\n[tool.fw]\napp = "shop:app"\n{setting}'
    )
    return root


def _orders_app(root: Path) -> Path:
    """Two application revisions; the first refers to fw's own accounts table."""
    migrations = root / "migrations"
    _revision(
        migrations,
        "shop_0001",
        None,
        "orders",
        'op.create_table("shop_orders", sa.Column("id", sa.Integer, primary_key=True),\n'
        '    sa.Column("account_id", sa.String(64), sa.ForeignKey("fw_accounts.account_id")))',
    )
    _revision(
        migrations,
        "shop_0002",
        "shop_0001",
        "order totals",
        'op.add_column("shop_orders", sa.Column("total", sa.Integer, nullable=True))',
    )
    return _project(root)


async def _state(dsn: str) -> tuple[set[str], dict[str, set[str]], set[str]]:
    """(tables, version-table contents, columns of shop_orders)."""
    engine = create_engine(dsn)
    try:
        async with engine.connect() as conn:
            tables = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
            versions = {}
            for table in (VERSION_TABLE, APP_VERSION_TABLE):
                if table in tables:
                    rows = await conn.execute(text(f"SELECT version_num FROM {table}"))
                    versions[table] = {row[0] for row in rows}
            columns: set[str] = set()
            if "shop_orders" in tables:
                columns = await conn.run_sync(
                    lambda sync: {c["name"] for c in inspect(sync).get_columns("shop_orders")}
                )
    finally:
        await engine.dispose()
    return tables, versions, columns


async def test_framework_then_application_revisions_are_applied_each_in_its_own_version_table(
    empty_store: str, tmp_path: Path
) -> None:
    chain = application_chain(_orders_app(tmp_path))
    lines = await upgrade(empty_store, application=chain)
    tables, versions, columns = await _state(empty_store)
    assert {"fw_revocations", "fw_allowlist", "fw_accounts", "shop_orders"} <= tables
    assert versions == {VERSION_TABLE: {"fw_0004"}, APP_VERSION_TABLE: {"shop_0002"}}
    assert {"id", "account_id", "total"} <= columns
    applied = [line for line in lines if line.startswith("applied")]
    assert [line.split(":")[0] for line in applied] == [
        "applied fw_0001",
        "applied fw_0002",
        "applied fw_0003",
        "applied fw_0004",
        "applied shop_0001",
        "applied shop_0002",
    ]
    assert applied[-1].endswith("(application)")


async def test_a_second_run_applies_nothing_and_a_new_revision_only_itself(
    empty_store: str, tmp_path: Path
) -> None:
    chain = application_chain(_orders_app(tmp_path))
    await upgrade(empty_store, application=chain)
    again = await upgrade(empty_store, application=chain)
    assert not [line for line in again if line.startswith("applied")]
    assert any("application tables are up to date" in line for line in again)
    _revision(
        tmp_path / "migrations",
        "shop_0003",
        "shop_0002",
        "notes",
        'op.create_table("shop_notes", sa.Column("id", sa.Integer, primary_key=True))',
    )
    third = await upgrade(empty_store, application=chain)
    assert [line for line in third if line.startswith("applied")] == [
        "applied shop_0003: notes (application)"
    ]


async def test_application_revision_ids_never_collide_with_the_framework_chain(
    empty_store: str, tmp_path: Path
) -> None:
    # The application happens to use the framework's own revision ids and no branch label.
    _revision(
        tmp_path / "migrations",
        "fw_0001",
        None,
        "same id",
        'op.create_table("shop_a", sa.Column("id", sa.Integer, primary_key=True))',
    )
    _revision(
        tmp_path / "migrations",
        "fw_0002",
        "fw_0001",
        "same id again",
        'op.create_table("shop_b", sa.Column("id", sa.Integer, primary_key=True))',
    )
    await upgrade(empty_store, application=application_chain(_project(tmp_path)))
    tables, versions, _ = await _state(empty_store)
    assert {"fw_revocations", "fw_sessions", "shop_a", "shop_b"} <= tables
    assert versions == {VERSION_TABLE: {"fw_0004"}, APP_VERSION_TABLE: {"fw_0002"}}


async def test_a_failing_application_revision_names_the_setting_and_keeps_the_framework_tables(
    empty_store: str, tmp_path: Path
) -> None:
    _revision(
        tmp_path / "migrations",
        "shop_0001",
        None,
        "broken",
        'op.execute("CREATE TABLE shop_x (id INTEGER PRIMARY KEY)")\nop.execute("THIS IS NOT SQL")',
    )
    with pytest.raises(StartupError) as refused:
        await upgrade(empty_store, application=application_chain(_project(tmp_path)))
    assert refused.value.key == "tool.fw.migrations"
    assert "application migrations could not be applied" in str(refused.value)
    tables, versions, _ = await _state(empty_store)
    assert versions.get(VERSION_TABLE) == {"fw_0004"}
    assert not versions.get(APP_VERSION_TABLE)
    assert "shop_x" not in tables  # transactional DDL on both databases: nothing left behind


def test_a_project_without_the_setting_has_no_application_chain(tmp_path: Path) -> None:
    assert application_chain(_project(tmp_path, migrations=None)) is None


@pytest.mark.parametrize("value", ["missing-dir", "", "pyproject.toml"])
def test_an_unusable_migrations_setting_is_refused_naming_it(tmp_path: Path, value: str) -> None:
    with pytest.raises(StartupError) as refused:
        application_chain(_project(tmp_path, migrations=value))
    assert refused.value.key == "tool.fw.migrations"


@pytest.fixture
def rdb_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """``[middleware.rdb] dsn`` in a config file, as ``fw migrate`` reads it."""
    path = tmp_path / "config.toml"
    path.write_text(f'[middleware.rdb]\ndsn = "sqlite:///{tmp_path / "cli.sqlite3"}"\n')
    configuration.reset()
    if not any(r.cls is RdbSettings for r in configuration.registry.state().configs.values()):
        configuration.register_config(RdbSettings, "middleware.rdb")
    monkeypatch.chdir(tmp_path)
    yield ["--config-path", str(path)]
    configuration.reset()


def test_fw_migrate_new_writes_revisions_in_a_chain_that_fw_migrate_then_applies(
    tmp_path: Path, rdb_config: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    project = str(_project(tmp_path))
    (tmp_path / "migrations").mkdir()
    assert fw_command(["--project", project, "migrate", "new", "create orders"]) == 0
    assert fw_command(["--project", project, "migrate", "new", "add totals"]) == 0
    written = capsys.readouterr().out
    files = sorted((tmp_path / "migrations").glob("*.py"))
    assert len(files) == 2 and all(str(f) in written for f in files)
    sources = [f.read_text() for f in files]
    first = next(s for s in sources if "down_revision = None" in s)
    second = next(s for s in sources if s is not first)
    first_id = first.split("revision = ")[1].splitlines()[0]
    assert f"down_revision = {first_id}" in second
    assert fw_command(["--project", project, "migrate", *rdb_config]) == 0
    out = capsys.readouterr().out
    assert "create orders (application)" in out and "add totals (application)" in out
    assert "applied fw_0001" in out


def test_fw_migrate_new_without_the_setting_says_how_to_enable_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fw_command(["--project", str(_project(tmp_path, migrations=None)), "migrate", "new", "x"]) == 1
    assert "[tool.fw] migrations" in capsys.readouterr().err


def test_fw_migrate_reports_a_missing_directory_in_one_line(
    tmp_path: Path, rdb_config: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    project = str(_project(tmp_path, migrations="nowhere"))
    assert fw_command(["--project", project, "migrate", *rdb_config]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tool.fw.migrations" in err[0]


def test_fw_migrate_new_with_two_heads_asks_for_a_merge_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "pass"
    _revision(tmp_path / "migrations", "shop_a", None, "one root", body)
    _revision(tmp_path / "migrations", "shop_b", None, "another root", body)
    assert fw_command(["--project", str(_project(tmp_path)), "migrate", "new", "more"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tool.fw.migrations" in err[0] and "head" in err[0]
