"""Apply pending migrations: fw's own chain, then the application's (``fw migrate``; ``fw dev`` too).

Two independent Alembic chains share one database and never see each other:

- the framework's revisions ship inside the package and record their state in
  ``fw_alembic_version``;
- the application's revisions live in the directory named by ``[tool.fw] migrations`` and record
  theirs in Alembic's usual ``alembic_version``, so a project that already ran Alembic keeps its
  history.

The framework chain runs first, so application revisions may refer to fw's tables. Each chain
commits on its own: a failing application revision leaves the framework tables migrated.
"""

from __future__ import annotations

import contextlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from fw.errors import StartupError
from fw.rdb.engine import DSN_KEY, create_engine, describe_dsn
from fw.rdb.faults import STORE_ERRORS

VERSION_TABLE = "fw_alembic_version"
APP_VERSION_TABLE = "alembic_version"
PROJECT_KEY = "tool.fw.migrations"
_SCRIPTS = Path(__file__).with_name("migrations")


@dataclass(frozen=True, slots=True)
class Chain:
    """One line of revisions: where its files are and which table remembers how far it got."""

    name: str
    versions: Path
    version_table: str
    #: The setting to name when this chain cannot be applied.
    key: str

    def config(self) -> Config:
        """An in-memory Alembic config: fw's ``env.py`` and template, this chain's revision files."""
        config = Config()
        config.set_main_option("script_location", _escape(_SCRIPTS))
        config.set_main_option("path_separator", "os")
        config.set_main_option("version_locations", _escape(self.versions))
        config.attributes["version_table"] = self.version_table
        return config


def _escape(path: Path) -> str:
    return str(path).replace("%", "%%")  # the config is a ConfigParser: % starts interpolation


FRAMEWORK = Chain("framework", _SCRIPTS / "versions", VERSION_TABLE, DSN_KEY)


def application_chain(root: Path) -> Chain | None:
    """The chain ``[tool.fw] migrations`` names in ``root/pyproject.toml``, or ``None`` without one.

    Raises :class:`fw.StartupError` naming ``tool.fw.migrations`` when the value is not a
    directory inside the project.
    """
    pyproject = root / "pyproject.toml"
    try:
        with pyproject.open("rb") as handle:
            tool = tomllib.load(handle).get("tool", {}).get("fw", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None  # the fw command reports an unreadable pyproject itself
    value = tool.get("migrations") if isinstance(tool, dict) else None
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise StartupError(
            PROJECT_KEY, value, 'name a directory of revision files, e.g. migrations = "migrations"'
        )
    directory = (root / value).resolve()
    if not directory.is_dir():
        raise StartupError(PROJECT_KEY, value, f"{directory} is not a directory; create it or fix the path")
    return Chain("application", directory, APP_VERSION_TABLE, PROJECT_KEY)


def configured_dsn() -> str:
    """``[middleware.rdb] dsn`` from the parsed configuration."""
    from fw.auth.stores.engines.rdb import RdbSettings
    from fw.configuration import config

    try:
        return config(RdbSettings).dsn
    except LookupError:
        return "sqlite:///fw.sqlite3"


def _heads(connection: Any, chain: Chain) -> tuple[str, ...]:
    context = MigrationContext.configure(connection, opts={"version_table": chain.version_table})
    return tuple(context.get_current_heads())


class NewerDatabase(StartupError):
    """The database records a revision of ``chain`` that this code does not have: it was migrated
    by a newer release (a rollback of the code, or an old process). Nothing is applied; the line
    names the database's revision and the code's head instead of Alembic's "Can't locate revision"."""

    def __init__(self, chain: Chain, target: str, found: tuple[str, ...], heads: tuple[str, ...]) -> None:
        unknown = ", ".join(found)
        head = ", ".join(heads) or "none"
        super().__init__(
            chain.key,
            target if chain is FRAMEWORK else str(chain.versions),
            f"the database is at {chain.name} revision {unknown}, newer than this code (its head is "
            f"{head}): it was migrated by a later release; run that release, or restore the database "
            "from before the upgrade",
        )


def _unknown(script: ScriptDirectory, revisions: tuple[str, ...]) -> tuple[str, ...]:
    """The recorded revisions that no revision file of ``script`` defines."""
    unknown: list[str] = []
    for revision in revisions:
        try:
            found = script.get_revision(revision)
        except CommandError:
            found = None
        if found is None:
            unknown.append(revision)
    return tuple(unknown)


def _apply(connection: Any, chain: Chain, target: str = "") -> list[str]:
    """Upgrade one chain to its heads on an open connection; one line per applied revision."""
    config = chain.config()
    script = ScriptDirectory.from_config(config)
    before = _heads(connection, chain)
    unknown = _unknown(script, before)
    if unknown:
        raise NewerDatabase(chain, target, unknown, tuple(script.get_heads()))
    config.attributes["connection"] = connection
    command.upgrade(config, "heads")
    after = _heads(connection, chain)
    applied = [rev for rev in script.iterate_revisions(after, before or "base") if rev.revision not in before]
    return [f"applied {rev.revision}: {rev.doc} ({chain.name})" for rev in reversed(applied)]


async def _apply_committed(conn: AsyncConnection, chain: Chain, target: str) -> list[str]:
    """Apply one chain in its own transaction; any failure undoes that chain's work alone."""
    try:
        lines = await conn.run_sync(_apply, chain, target)
        await conn.commit()
    except NewerDatabase:
        with contextlib.suppress(Exception):
            await conn.rollback()
        raise
    except Exception as error:
        with contextlib.suppress(Exception):
            await conn.rollback()
        text = str(getattr(error, "orig", None) or error).strip().splitlines()
        raise StartupError(
            chain.key,
            target if chain is FRAMEWORK else str(chain.versions),
            f"the {chain.name} migrations could not be applied "
            f"({type(error).__name__}: {text[0] if text else 'no detail'}); nothing of this chain was kept",
        ) from None
    return lines


def _transactional_ddl(engine: AsyncEngine) -> None:
    """Make SQLite roll back schema changes too, as PostgreSQL does.

    Python's sqlite3 driver commits before DDL on its own; taking transaction control from it
    (the recipe in SQLAlchemy's SQLite dialect documentation) lets a failed chain leave nothing
    behind on either database.
    """

    @event.listens_for(engine.sync_engine, "connect")
    def _driver_stays_out(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN")


async def upgrade(dsn: str | None = None, *, application: Chain | None = None) -> list[str]:
    """Apply every pending framework migration, then every pending ``application`` one.

    Returns printable lines: one per applied revision, then one "up to date" line per chain.
    """
    dsn = dsn or configured_dsn()
    chains = [FRAMEWORK] if application is None else [FRAMEWORK, application]
    engine = create_engine(dsn)
    if engine.dialect.name == "sqlite":
        _transactional_ddl(engine)
    target = describe_dsn(dsn)
    lines: list[str] = []
    try:
        async with engine.connect() as conn:
            for chain in chains:
                lines += await _apply_committed(conn, chain, target)
    except STORE_ERRORS as error:
        raise StartupError(DSN_KEY, target, f"cannot migrate: {type(error).__name__}: {error}") from None
    finally:
        await engine.dispose()
    lines += [f"{target}: {chain.name} tables are up to date" for chain in chains]
    return lines


def new_revision(chain: Chain, message: str) -> Path:
    """Write an empty revision file at the head of the application's chain and return its path."""
    if chain is FRAMEWORK:
        raise ValueError("the framework's own migrations ship with fw")
    try:
        script = command.revision(chain.config(), message=message)
    except CommandError as error:  # several heads, an unreadable revision file...
        raise StartupError(chain.key, str(chain.versions), f"no revision written: {error}") from None
    scripts = script if isinstance(script, list) else [script]
    if not scripts or scripts[0] is None:
        raise RuntimeError("Alembic wrote no revision file")
    return Path(scripts[0].path)
