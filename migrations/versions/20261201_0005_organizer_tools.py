"""organizer tools: identity keys, seeds, clubs, check-in, forbidden pairs, the event's audit trail

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 12:00:00
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def _name_key(name: str) -> str:
    # The rule of app/core/identity.py as it stood when this revision was written.
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=200), nullable=True))
    players = sa.table(
        "players", sa.column("id", sa.String), sa.column("name", sa.String), sa.column("name_key", sa.String)
    )
    conn = op.get_bind()
    for pid, name in conn.execute(sa.select(players.c.id, players.c.name)).all():
        conn.execute(players.update().where(players.c.id == pid).values(name_key=_name_key(name)))
    with op.batch_alter_table("players") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=200), nullable=False)
        batch.create_index(batch.f("ix_players_name_key"), ["name_key"], unique=False)

    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("seed", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("club", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("matched_by", sa.String(length=16), nullable=False, server_default="new"))
        batch.add_column(sa.Column("checked_in_at", sa.DateTime(timezone=True), nullable=True))

    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("forbidden_pairs", JSON, nullable=False, server_default="[]"))

    op.create_table(
        "event_history",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_event_history_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_history")),
    )
    op.create_index(op.f("ix_event_history_event_id"), "event_history", ["event_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_event_history_event_id"), table_name="event_history")
    op.drop_table("event_history")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("forbidden_pairs")
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("checked_in_at")
        batch.drop_column("matched_by")
        batch.drop_column("club")
        batch.drop_column("seed")
    with op.batch_alter_table("players") as batch:
        batch.drop_index(batch.f("ix_players_name_key"))
        batch.drop_column("name_key")
