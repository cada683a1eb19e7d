"""One-statement reads on the request path, run on the driver beneath SQLAlchemy.

Reading one row by key through SQLAlchemy's async engine costs about 250 µs of Python (the
checkout across the greenlet bridge, an execution context, a result object) for a query the
database answers in tens of microseconds. The reads a request may make on every call (a
session by its token digest, a bearer token's revocation entries) go through
:class:`PointRead` instead. SQLAlchemy still compiles the statement, once, for the engine's
dialect (its public ``compile()`` and ``construct_expanded_state()``: the SQL text and the
order of its positional parameters); each call binds positional values and runs it on the driver:

- PostgreSQL: on the asyncpg connection of a connection checked out from the engine's own pool
  (no second pool, the same ``statement_timeout``), through asyncpg's prepared statements.
  A failed call invalidates its connection and every older one, so the pool replaces them: the
  next checkout from the engine raises SQLAlchemy's ``InvalidatePoolError`` from a pool
  ``checkout`` listener, the public way to have the pool do what it does on a disconnect.
  What the driver raises, from the checkout as from the query, is re-raised as
  :class:`~fw.rdb.faults.DriverError`, which the store reports as unavailable like every
  failure SQLAlchemy wraps (:mod:`fw.rdb.faults`).
- SQLite with a database file: on a read-only stdlib ``sqlite3`` connection, in the event loop's
  thread. A keyed read served from the page cache takes a few microseconds, less than the hop to
  aiosqlite's worker thread and back. It never waits for a lock (``timeout=0``): when a writer
  holds the file, or the file cannot be opened, that call runs through the engine as before, so
  a busy database never blocks the loop.
- SQLite in memory, or a URL with query options: through the engine (another connection would
  see another database, or other options).

Values come back as the driver gives them: :func:`stored_time` reads a timestamp column on
either engine.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import PoolProxiedConnection, Select, event, exc
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import ConnectionPoolEntry, QueuePool
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.util import greenlet_spawn

from fw.rdb.faults import DriverError, driver_errors

#: Any SELECT, whatever its columns.
AnySelect = Select[*tuple[Any, ...]]

#: A row as the driver returns it (a tuple from sqlite3, an ``asyncpg.Record``).
DriverRow = Sequence[Any]


def stored_time(value: datetime | str) -> datetime:
    """A timestamp column as an aware UTC datetime: SQLite stores naive UTC text."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _sqlite_text(value: Any) -> Any:
    """A bound value in the form SQLAlchemy's SQLite ``DateTime`` stores and compares."""
    if isinstance(value, datetime):
        # SQLAlchemy's spelling (four-digit year, six fractional digits), faster than strftime.
        return value.replace(tzinfo=None).isoformat(" ", "microseconds")
    return value


class DirectReads:
    """The driver-level read path of one engine; owns the SQLite read connection, if any."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
        #: What a call on the driver raises when the database fails it (:func:`driver_errors`).
        self.driver_errors = driver_errors(engine.dialect)
        url = engine.url
        database = url.database or ""
        in_file = url.get_backend_name() == "sqlite" and database not in ("", ":memory:")
        self._sqlite_path = database if in_file and not url.query else None
        self._sqlite: sqlite3.Connection | None = None
        self._stale = False

    def statement(self, query: AnySelect) -> PointRead:
        """``query`` compiled once for this engine, ready to run with :meth:`PointRead.rows`."""
        return PointRead(self, query)

    def sqlite_connection(self) -> sqlite3.Connection | None:
        """The read-only connection to the SQLite file, opened on first use; None if it can't be."""
        if self._sqlite is None and self._sqlite_path is not None:
            try:
                self._sqlite = sqlite3.connect(
                    f"file:{quote(self._sqlite_path)}?mode=ro",
                    uri=True,
                    timeout=0,
                    isolation_level=None,
                    check_same_thread=False,
                )
            except sqlite3.Error:
                return None  # no file yet, or unreadable: the engine reports it properly
        return self._sqlite

    def mark_stale(self) -> None:
        """After a failed read: the engine's next checkout replaces every pooled connection.

        The ``checkout`` listener is added on the first failure only, so a pool that never
        failed checks out without it.
        """
        self._stale = True
        target = self.engine.sync_engine  # pool events on the engine follow its pool when replaced
        if not event.contains(target, "checkout", self._checkout):
            event.listen(target, "checkout", self._checkout)

    def _checkout(self, _dbapi: Any, _entry: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
        if self._stale:
            self._stale = False
            # The pool invalidates this connection and every one as old, then reconnects this one.
            raise exc.InvalidatePoolError("a point read failed on a connection of this pool")

    def close(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None


class PointRead:
    """One compiled SELECT; :meth:`rows` runs it with the named values on the fastest path."""

    def __init__(self, reads: DirectReads, query: AnySelect) -> None:
        self._reads = reads
        self._query = query
        compiled = query.compile(dialect=reads.engine.dialect)
        if not isinstance(compiled, SQLCompiler) or not compiled.positional:
            raise TypeError(f"{reads.engine.dialect.name} does not compile to positional parameters")
        # Every parameter named, bound or not, so SQLAlchemy asks for none of them; literals in
        # the statement (kind = 'token') are bound parameters with a fixed value.
        state = compiled.construct_expanded_state(compiled.params, escape_names=False)
        self._sql = state.statement
        self._order = [(name, state.parameters[name]) for name in state.positiontup or ()]

    def _values(self, values: Mapping[str, Any]) -> list[Any]:
        return [values.get(name, fixed) for name, fixed in self._order]

    async def rows(self, values: Mapping[str, Any]) -> Sequence[DriverRow]:
        """Every row the statement selects; raises what :data:`~fw.rdb.faults.STORE_ERRORS` lists
        when the database fails the read."""
        reads = self._reads
        if reads.postgres:
            return await self._postgres(values)
        connection = reads.sqlite_connection()
        if connection is not None:
            bound = [_sqlite_text(value) for value in self._values(values)]
            try:
                found: list[DriverRow] = connection.execute(self._sql, bound).fetchall()
                return found
            except sqlite3.Error:
                pass  # locked by a writer, or not readable as it is: the engine waits and reports
        async with reads.engine.connect() as conn:
            return (await conn.execute(self._query, dict(values))).all()

    async def _postgres(self, values: Mapping[str, Any]) -> Sequence[DriverRow]:
        reads = self._reads
        try:
            # A connection the pool opens now fails as the adapter's DBAPI error: "the database
            # system is starting up" is asyncpg's CannotConnectNowError in that dress.
            raw = await reads.engine.raw_connection()
        except reads.driver_errors as error:
            raise DriverError(str(error)) from error
        failure: BaseException | None = None
        try:
            rows: Sequence[DriverRow] = await raw.driver_connection.fetch(  # type: ignore[union-attr]
                self._sql, *self._values(values)
            )
        except BaseException as error:
            failure = error
            # InternalClientError is among them: a connection the server ended while idle can
            # answer the next call with "another operation is in progress".
            if isinstance(error, reads.driver_errors):
                raise DriverError(str(error)) from error
            raise
        finally:
            pool = reads.engine.pool
            if failure is None and isinstance(pool, QueuePool) and pool.checkedin() < pool.size():
                raw.close()  # back into the pool's queue: nothing to await (no transaction was begun)
            else:
                # Handing it back closes it (a failed connection, or one the pool does not
                # keep), which SQLAlchemy's async adapter can only do inside its greenlet bridge.
                await greenlet_spawn(self._release, raw, failure)
        return rows

    def _release(self, raw: PoolProxiedConnection, failure: BaseException | None) -> None:
        if isinstance(failure, asyncio.CancelledError):
            raw.invalidate()  # a cancelled call may leave the connection mid-protocol
        elif failure is not None:
            if raw.is_valid:
                raw.invalidate(failure)
            # As SQLAlchemy does on a disconnect: every connection as old goes too, so after a
            # database restart one failed read clears the stale pool, not one per request.
            self._reads.mark_stale()
        raw.close()
