"""staff: an event's named scorekeepers and judges, each with a token of its own (only its hash is
kept); a revoked member keeps its row so that the audit histories naming it still say who it was
(api.md "Staff")

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "staff",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("role IN ('scorekeeper', 'judge')", name=op.f("ck_staff_role")),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_staff_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_staff_token_hash")),
    )
    op.create_index(op.f("ix_staff_event_id"), "staff", ["event_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_staff_event_id"), table_name="staff")
    op.drop_table("staff")
