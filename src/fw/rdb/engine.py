"""Turn a ``[middleware.rdb] dsn`` into an async engine and check the framework tables exist.

SQLite is the embedded default, PostgreSQL the deployment choice; both are reached through
their asyncio drivers (aiosqlite, asyncpg) so a store read never waits on the event loop. The
reads made on every request go beneath SQLAlchemy, in :mod:`fw.rdb.pointread`.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import inspect
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from fw.errors import ConfigError, StartupError
from fw.extras import require_extra
from fw.rdb.faults import STORE_ERRORS

DSN_KEY = "middleware.rdb.dsn"
POOL_SIZE_KEY = "middleware.rdb.pool_size"
#: Connections a PostgreSQL engine keeps when ``[middleware.rdb] pool_size`` is not set.
DEFAULT_POOL_SIZE = 20
_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
}


def async_url(dsn: str) -> str:
    """``sqlite:///file`` -> ``sqlite+aiosqlite:///file``; ``postgresql://`` -> ``postgresql+asyncpg://``.

    Raises :class:`fw.StartupError` for a scheme fw has no driver for.
    """
    scheme, sep, rest = dsn.partition("://")
    if not sep:
        raise StartupError(
            DSN_KEY, describe_dsn(dsn), "use sqlite:///file.sqlite3 or postgresql://user@host/db"
        )
    base, plus, driver = scheme.partition("+")
    wanted = _DRIVERS.get(base.lower())
    if wanted is None:
        raise StartupError(
            DSN_KEY,
            describe_dsn(dsn),
            "unsupported database; use sqlite:///file or postgresql://user@host/db",
        )
    if plus and f"{base.lower()}+{driver}" != wanted:
        raise StartupError(DSN_KEY, describe_dsn(dsn), f"write the plain scheme; fw uses {wanted} itself")
    return f"{wanted}://{rest}"


def describe_dsn(dsn: str) -> str:
    """The DSN with user information masked and the query dropped, safe for messages and logs."""
    try:
        parts = urlsplit(dsn)
        if not parts.netloc:
            return dsn.partition("?")[0]
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        if parts.username or parts.password:
            host = f"*****@{host}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:
        return "*****"


def create_engine(dsn: str, pool_size: int = DEFAULT_POOL_SIZE) -> AsyncEngine:
    """An engine for the DSN; SQLite gets a busy timeout so concurrent writers wait, not fail.

    ``pool_size`` is how many PostgreSQL connections the engine keeps; SQLite keeps the pool
    SQLAlchemy gives its driver, since one file needs no more. PostgreSQL needs the ``postgres``
    extra (asyncpg); without it this is a startup error.
    """
    check_pool_size(pool_size)
    url = make_url(async_url(dsn))
    if url.get_backend_name() == "sqlite":
        # hide_parameters: an error names the statement, never its values (account ids, keys).
        return create_async_engine(url, connect_args={"timeout": 15}, hide_parameters=True)
    require_extra("postgres", DSN_KEY, describe_dsn(dsn), "PostgreSQL")
    return create_async_engine(
        url,
        # pool_size connections kept, none beyond: an overflow connection is closed when handed
        # back, so a process busier than its pool (a request path that reads faster than the
        # pool turns over) opened and closed a server process per read; waiting for one of the
        # kept connections is far cheaper. The most a process holds is pool_size.
        pool_size=pool_size,
        max_overflow=0,
        pool_recycle=1800,
        # Connect timeout on the client; a statement timeout on the server, which costs no
        # client-side timer per query.
        connect_args={"timeout": 5, "server_settings": {"statement_timeout": "5000"}},
        hide_parameters=True,  # an error names the statement, never its values
    )


def check_pool_size(pool_size: int) -> None:
    """Refuse a pool that could never hand out a connection (``[middleware.rdb] pool_size``)."""
    if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
        raise ConfigError(
            POOL_SIZE_KEY, "", f"must be a positive number of connections such as 20, got {pool_size!r}"
        )


def reader(engine: AsyncEngine) -> AsyncEngine:
    """The engine for single-statement reads on the request path.

    On PostgreSQL it runs in autocommit, which saves the BEGIN and ROLLBACK round trips a
    one-query read does not need; SQLite's driver is faster left as it is.
    """
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="AUTOCOMMIT")
    return engine


async def require_tables(engine: AsyncEngine, dsn: str, tables: Iterable[str]) -> None:
    """Refuse to start when the store is unreachable or a framework table is missing.

    A missing table means migrations were not applied; the message says to run ``fw migrate``.
    """
    wanted = list(tables)
    try:
        async with engine.connect() as conn:
            present = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    except STORE_ERRORS as error:
        raise StartupError(
            DSN_KEY,
            describe_dsn(dsn),
            f"the database cannot be reached ({type(error).__name__}: {_first_line(error)})",
        ) from None
    missing = [name for name in wanted if name not in present]
    if missing:
        raise StartupError(
            DSN_KEY,
            describe_dsn(dsn),
            f"table {', '.join(missing)} is missing; run `fw migrate` to apply the framework migrations",
        )


def _first_line(error: BaseException) -> str:
    text = str(getattr(error, "orig", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def describe_error(error: BaseException) -> str:
    """A database error in one line, for a log or a ``StoreUnavailable`` reason: the driver's
    class and the first line of its own message. SQLAlchemy's text of an error goes on with the
    statement and its parameters (account IDs, token hashes), which never belong in a log."""
    cause = getattr(error, "orig", None) or error
    return f"{type(cause).__name__}: {_first_line(error)}"
