"""Apply the framework's Alembic migrations (``fw migrate``; ``fw dev`` calls it too).

The migrations ship inside the package, so a deployment needs no Alembic project of its own;
fw keeps its own version table, out of the way of an application's ``alembic_version``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from fw.errors import StartupError
from fw.rdb.engine import DSN_KEY, STORE_ERRORS, create_engine, describe_dsn

VERSION_TABLE = "fw_alembic_version"
_SCRIPTS = Path(__file__).with_name("migrations")


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    return config


def configured_dsn() -> str:
    """``[middleware.rdb] dsn`` from the parsed configuration."""
    from fw import configuration
    from fw.settings import MiddlewareSettings, RdbSettings

    try:
        return configuration.config(MiddlewareSettings).rdb.dsn
    except LookupError:
        try:
            return configuration.config(RdbSettings).dsn
        except LookupError:
            return "sqlite:///fw.sqlite3"


async def upgrade(dsn: str | None = None) -> list[str]:
    """Apply every pending framework migration; returns one printable line per step."""
    dsn = dsn or configured_dsn()
    config = alembic_config()
    script = ScriptDirectory.from_config(config)
    engine = create_engine(dsn)
    lines: list[str] = []

    def run(connection: Any) -> None:
        before = MigrationContext.configure(
            connection, opts={"version_table": VERSION_TABLE}
        ).get_current_heads()
        config.attributes["connection"] = connection
        command.upgrade(config, "heads")
        after = MigrationContext.configure(
            connection, opts={"version_table": VERSION_TABLE}
        ).get_current_heads()
        applied = [
            rev for rev in script.iterate_revisions(after, before or "base") if rev.revision not in before
        ]
        for rev in reversed(applied):
            lines.append(f"applied {rev.revision}: {rev.doc}")

    try:
        async with engine.begin() as conn:
            await conn.run_sync(run)
    except STORE_ERRORS as error:
        raise StartupError(
            DSN_KEY, describe_dsn(dsn), f"cannot migrate: {type(error).__name__}: {error}"
        ) from None
    finally:
        await engine.dispose()
    target = describe_dsn(dsn)
    if not lines:
        return [f"{target}: framework tables are up to date"]
    return [*lines, f"{target}: framework tables are up to date"]
