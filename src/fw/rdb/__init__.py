"""Relational storage: one async SQLAlchemy engine per ``[middleware.rdb] dsn``, framework tables.

Users write the plain URL they know (``sqlite:///fw.sqlite3``, ``postgresql://user@host/db``);
the framework picks the async driver, so no one has to learn driver-qualified URL schemes.
"""

from fw.rdb.engine import async_url, create_engine, describe_dsn, require_tables
from fw.rdb.tables import ALLOWLIST, METADATA, REVOCATIONS

__all__ = [
    "ALLOWLIST",
    "METADATA",
    "REVOCATIONS",
    "async_url",
    "create_engine",
    "describe_dsn",
    "require_tables",
]
