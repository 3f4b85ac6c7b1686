"""ratings: rating_history becomes a plain derived table (no per-row foreign-key triggers); the
pool row keeps its history's high-water mark; matches get an index on reported_at (rating order)

rating_history is rewritten wholesale by a recompute (2,000,000 rows for a 1,000,000-game pool);
its foreign keys fired one trigger per row and per key, about half of the rewrite's time. Its rows
are written only by app/services/ratings.py, from a join over the rows they name, in the transaction
that holds the pool's lock; a deleted match leaves its rows until the pool's next recompute. The
high-water mark (last seq and match) lives on the pool row rather than in an index on
(pool_key, seq), which would be updated at random places by every rewrite.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FKS = (
    ("fk_rating_history_match_id_matches", ["match_id"], "matches", ["id"], "SET NULL"),
    ("fk_rating_history_player_id_players", ["player_id"], "players", ["id"], None),
    ("fk_rating_history_pool_key_rating_pools", ["pool_key"], "rating_pools", ["key"], "CASCADE"),
)


def upgrade() -> None:
    with op.batch_alter_table("rating_history") as batch:
        for name, *_ in FKS:
            batch.drop_constraint(name, type_="foreignkey")
    op.add_column("rating_pools", sa.Column("last_seq", sa.Integer(), nullable=True))
    op.add_column("rating_pools", sa.Column("last_match_id", sa.String(length=36), nullable=True))
    op.create_index("ix_matches_reported_at", "matches", ["reported_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_matches_reported_at", table_name="matches")
    with op.batch_alter_table("rating_pools") as pools:
        pools.drop_column("last_match_id")
        pools.drop_column("last_seq")
    with op.batch_alter_table("rating_history") as batch:
        for name, cols, table, ref, ondelete in FKS:
            batch.create_foreign_key(name, table, cols, ref, ondelete=ondelete)
