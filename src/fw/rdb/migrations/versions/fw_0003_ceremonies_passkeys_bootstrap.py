"""passkey ceremonies, credentials and bootstrap records

Revision ID: fw_0003
Revises: fw_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "fw_0003"
down_revision = "fw_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fw_ceremonies",
        sa.Column("key", sa.String(256), primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("fw_ceremonies_expires_at", "fw_ceremonies", ["expires_at"])
    op.create_table(
        "fw_passkeys",
        sa.Column("credential_id", sa.String(1400), primary_key=True),
        sa.Column("account_id", sa.String(256), nullable=False),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("user_handle", sa.LargeBinary, nullable=False),
        sa.Column("transports", sa.Text, nullable=False, server_default=""),
        sa.Column("backup_eligible", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("backed_up", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("fw_passkeys_account_id", "fw_passkeys", ["account_id"])
    op.create_table(
        "fw_bootstrap",
        sa.Column("login_id", sa.String(256), primary_key=True),
        sa.Column("account_id", sa.String(256), nullable=False),
        sa.Column("purpose", sa.String(32), nullable=False),
        sa.Column("secret_digest", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts_left", sa.Integer, nullable=False),
        sa.Column("redeemed", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("fw_bootstrap_expires_at", "fw_bootstrap", ["expires_at"])


def downgrade() -> None:
    op.drop_index("fw_bootstrap_expires_at", table_name="fw_bootstrap")
    op.drop_table("fw_bootstrap")
    op.drop_index("fw_passkeys_account_id", table_name="fw_passkeys")
    op.drop_table("fw_passkeys")
    op.drop_index("fw_ceremonies_expires_at", table_name="fw_ceremonies")
    op.drop_table("fw_ceremonies")
