"""seasons: a league's table across events (a points table by place, optionally its best results
only), its organizer's token hash, and the events it counts (api.md "Seasons")

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "seasons",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("points", JSON, nullable=False),
        sa.Column("best_of", sa.Integer(), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seasons")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_seasons_token_hash")),
    )
    op.create_table(
        "season_events",
        sa.Column("season_id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"], ["seasons.id"], name=op.f("fk_season_events_season_id_seasons"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_season_events_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("season_id", "event_id", name=op.f("pk_season_events")),
    )
    op.create_index(op.f("ix_season_events_event_id"), "season_events", ["event_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_season_events_event_id"), table_name="season_events")
    op.drop_table("season_events")
    op.drop_table("seasons")
