"""session marks: find the sessions of one provider session (back-channel logout)

Revision ID: fw_0004
Revises: fw_0003
"""

import sqlalchemy as sa
from alembic import op

revision = "fw_0004"
down_revision = "fw_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fw_session_marks",
        sa.Column("mark", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("mark", "token_hash", name="fw_session_marks_pk"),
    )
    op.create_index("fw_session_marks_expires_at", "fw_session_marks", ["expires_at"])


def downgrade() -> None:
    op.drop_index("fw_session_marks_expires_at", table_name="fw_session_marks")
    op.drop_table("fw_session_marks")
