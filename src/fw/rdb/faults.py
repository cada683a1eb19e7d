"""Which failures mean "the database cannot be used now", whichever path a statement took.

The ``rdb`` store answers every one of them as ``StoreUnavailable`` (a 503), so the list must be
complete for both paths a statement takes, or a database that is merely restarting is reported
as something else (a bug's 500, or worse):

- Through SQLAlchemy, the driver's error arrives wrapped in SQLAlchemy's ``DBAPIError`` (a
  refused or dropped connection, "the database system is starting up", SQLite's "database is
  locked" once the busy timeout passed, a statement timeout), besides the pool's own
  ``TimeoutError`` and the ``OSError`` of a connection that could not even be opened.
- Beneath SQLAlchemy (:mod:`fw.rdb.pointread`), nothing wraps it: a query on the asyncpg
  connection raises asyncpg's own classes, and a connection the pool opens for it raises the
  PEP 249 ``Error`` of SQLAlchemy's driver adapter. That is how asyncpg's
  ``CannotConnectNowError`` arrives while PostgreSQL starts up or recovers.
  :func:`driver_errors` names these for an engine; the point reads re-raise them as
  :class:`DriverError`.

:data:`STORE_ERRORS` is the one list every caller checks. Anything else escaping a store call is
a fault in fw, and is left to the App's 500 boundary.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Dialect


class DriverError(Exception):
    """A driver call made beneath SQLAlchemy failed (the database did not answer the read)."""


#: Exceptions that mean "the store did not answer", as opposed to a bug in fw.
STORE_ERRORS: tuple[type[BaseException], ...] = (
    sa_exc.DBAPIError,  # every driver error, wrapped by SQLAlchemy (its InterfaceError included)
    sa_exc.TimeoutError,  # no pooled connection came free in time
    OSError,  # no connection at all (refused, reset, unreachable); TimeoutError is one too
    DriverError,
)


def driver_errors(dialect: Dialect) -> tuple[type[BaseException], ...]:
    """What a call beneath SQLAlchemy on ``dialect``'s driver raises when the database fails it.

    The adapter's PEP 249 ``Error`` (every connect made by the pool, on either engine) and, on
    PostgreSQL, asyncpg's server errors (any SQLSTATE: 57P03 "cannot connect now", 57P01 "admin
    shutdown", 57014 a statement timeout...), its connection errors, and the internal error a
    connection the server ended while idle can raise instead of a closed-connection one.
    """
    errors: list[type[BaseException]] = [dialect.loaded_dbapi.Error, sqlite3.Error]
    if dialect.name == "postgresql":
        import asyncpg  # the postgres extra; present whenever the dialect is postgresql

        errors += [asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.exceptions.InternalClientError]
    return tuple(errors)
