"""Alembic environment for fw's own tables: runs on the connection ``fw.rdb.migrate`` hands it."""

from alembic import context

from fw.rdb.migrate import VERSION_TABLE
from fw.rdb.tables import METADATA

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=METADATA,
    version_table=VERSION_TABLE,
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
