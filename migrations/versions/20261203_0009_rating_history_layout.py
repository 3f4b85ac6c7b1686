"""rating history layout: rows keyed by (player_id, pool_key, seq), without a surrogate id or a
timestamp

A full recompute rewrites the pool's history (2,000,000 rows for a 1,000,000-game pool). Each row
carried a 36-character random id, its primary key, beside the (player_id, pool_key, seq) index every
read uses: two B-trees to fill per row, one of them at random places. The row's natural key is its
primary key now, so a rewrite fills one index, page after page (the rows are written in player
order), and each row is about 60 bytes smaller. Nothing read the id or the timestamp.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_rating_history_player_id_pool_key", table_name="rating_history")
    with op.batch_alter_table("rating_history", recreate="always") as batch:
        batch.drop_constraint("pk_rating_history", type_="primary")
        batch.drop_column("id")
        batch.drop_column("created_at")
        batch.create_primary_key("pk_rating_history", ["player_id", "pool_key", "seq"])


def downgrade() -> None:
    # the old surrogate id, made up for the rows kept (derived data: nothing named them)
    if op.get_bind().dialect.name == "postgresql":
        made_up = "md5(player_id || ':' || pool_key || ':' || seq::text)"
    else:
        made_up = "lower(hex(randomblob(16)))"
    with op.batch_alter_table("rating_history", recreate="always") as batch:
        batch.drop_constraint("pk_rating_history", type_="primary")
        batch.add_column(sa.Column("id", sa.String(length=36), nullable=True))
        batch.add_column(
            sa.Column(
                "created_at",
                sa.DateTime(timezone=True),
                nullable=False,
                server_default=sa.func.current_timestamp(),
            )
        )
    op.execute(f"UPDATE rating_history SET id = {made_up}")
    with op.batch_alter_table("rating_history", recreate="always") as batch:
        batch.alter_column("id", existing_type=sa.String(length=36), nullable=False)
        batch.alter_column("created_at", server_default=None, existing_type=sa.DateTime(timezone=True))
        batch.create_primary_key("pk_rating_history", ["id"])
    op.create_index(
        "ix_rating_history_player_id_pool_key",
        "rating_history",
        ["player_id", "pool_key", "seq"],
        unique=False,
    )
