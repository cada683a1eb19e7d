"""revocation entries and the admission allow-list

Revision ID: fw_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "fw_0001"
down_revision = None
branch_labels = ("fw",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fw_revocations",
        sa.Column("issuer", sa.String(1024), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("key", sa.String(1024), nullable=False),
        sa.Column("stamp", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("issuer", "kind", "key", name="fw_revocations_pk"),
    )
    op.create_index("fw_revocations_expires_at", "fw_revocations", ["expires_at"])
    op.create_table(
        "fw_allowlist",
        sa.Column("issuer", sa.String(1024), nullable=False),
        sa.Column("claim", sa.String(256), nullable=False),
        sa.Column("value", sa.String(1024), nullable=False),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("issuer", "claim", "value", name="fw_allowlist_pk"),
    )


def downgrade() -> None:
    op.drop_table("fw_allowlist")
    op.drop_index("fw_revocations_expires_at", table_name="fw_revocations")
    op.drop_table("fw_revocations")
