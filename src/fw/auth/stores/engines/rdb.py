"""``rdb``: SQLite or PostgreSQL through SQLAlchemy (:mod:`fw.auth.stores.rdb`), at ``[middleware.rdb]``.

Its sessions live in the ``auth.backend`` store, so ``session.backend = "rdb"`` needs
``auth.backend = "rdb"``. Its tables come from fw's migration chain, which ``fw migrate`` always
applies (the table is always in use: applications keep their own tables in the same database).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.configuration import register_config
from fw.markers import default

if TYPE_CHECKING:
    from fw.auth.stores.interfaces import AuthStore


@dataclass
class RdbSettings:
    """Relational storage shared by sessions, auth records and revocation."""

    #: Database URL: sqlite:///file.sqlite3 (embedded) or postgresql://user@host:5432/db.
    dsn: Annotated[str, default("sqlite:///fw.sqlite3")]
    #: PostgreSQL connections the process keeps open (a positive number; SQLite keeps its own).
    pool_size: Annotated[int, default("20")]


register_config(RdbSettings, "middleware.rdb")


def open_rdb(settings: StoreSettings) -> AuthStore:
    from fw.auth.stores.rdb import RdbStore

    rdb = settings.table(RdbSettings)
    return RdbStore.open(rdb.dsn, rdb.pool_size)


RDB = StoreEngine(
    name="rdb",
    open_auth=open_rdb,
    sessions_in_auth_store=True,
    table="middleware.rdb",
    settings=RdbSettings,
    table_always_used=True,
    extras={"postgres": "asyncpg"},
    scaffold=StoreScaffold(offered=True),
)
