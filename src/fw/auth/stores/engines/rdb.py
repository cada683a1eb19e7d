"""``rdb``: SQLite or PostgreSQL through SQLAlchemy (:mod:`fw.auth.stores.rdb`), at ``[middleware.rdb]``.

Its sessions live in the ``auth.backend`` store, so ``session.backend = "rdb"`` needs
``auth.backend = "rdb"``. Its tables come from fw's migration chain, which ``fw migrate`` always
applies (the table is always in use: applications keep their own tables in the same database).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.settings import RdbSettings

if TYPE_CHECKING:
    from fw.auth.stores.interfaces import AuthStore


def open_rdb(settings: StoreSettings) -> AuthStore:
    from fw.auth.stores.rdb import RdbStore

    rdb = settings.middleware.rdb
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
