"""the hall: an event's announcements, and its round clock (one row an event: running until
``ends_at``, or paused with ``remaining_s`` left; extra seconds by table) (api.md "Announcements",
"The round clock")

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "announcements",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("text", sa.String(length=500), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_announcements_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_announcements")),
    )
    op.create_index(op.f("ix_announcements_event_id"), "announcements", ["event_id"], unique=False)
    op.create_table(
        "round_clocks",
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("duration_s", sa.Integer(), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("remaining_s", sa.Float(), nullable=True),
        sa.Column("tables", JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("state IN ('running', 'paused', 'ended')", name=op.f("ck_round_clocks_state")),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_round_clocks_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_round_clocks")),
    )


def downgrade() -> None:
    op.drop_table("round_clocks")
    op.drop_index(op.f("ix_announcements_event_id"), table_name="announcements")
    op.drop_table("announcements")
