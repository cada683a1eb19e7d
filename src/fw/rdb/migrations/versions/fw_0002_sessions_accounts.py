"""browser sessions and the default accounts table

Revision ID: fw_0002
Revises: fw_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "fw_0002"
down_revision = "fw_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fw_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("account_id", sa.String(256), nullable=False, server_default=""),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("fw_sessions_expires_at", "fw_sessions", ["expires_at"])
    op.create_index("fw_sessions_account_id", "fw_sessions", ["account_id"])
    op.create_table(
        "fw_accounts",
        sa.Column("account_id", sa.String(64), primary_key=True),
        sa.Column("issuer", sa.String(1024), nullable=False),
        sa.Column("claim_value", sa.String(1024), nullable=False),
        sa.Column("display_name", sa.String(512), nullable=False, server_default=""),
        sa.Column("email", sa.String(512), nullable=False, server_default=""),
        sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("issuer", "claim_value", name="fw_accounts_link"),
    )


def downgrade() -> None:
    op.drop_table("fw_accounts")
    op.drop_index("fw_sessions_account_id", table_name="fw_sessions")
    op.drop_index("fw_sessions_expires_at", table_name="fw_sessions")
    op.drop_table("fw_sessions")
