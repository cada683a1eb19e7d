"""Alembic environment for every chain fw applies: runs on the connection ``fw.rdb.migrate`` hands it.

The version table comes from the chain (``fw_alembic_version`` for the framework,
``alembic_version`` for the application), so the two chains never read each other's state.
"""

from alembic import context

from fw.rdb.migrate import VERSION_TABLE
from fw.rdb.tables import METADATA

attributes = context.config.attributes
version_table = attributes.get("version_table", VERSION_TABLE)
context.configure(
    connection=attributes["connection"],
    target_metadata=METADATA if version_table == VERSION_TABLE else None,
    version_table=version_table,
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
