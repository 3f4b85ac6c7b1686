"""ratings: indexes for incremental Elo updates (the pool's last history row, a match's rows,
confirmed matches after a time)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 12:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_rating_history_pool_key_seq", "rating_history", ["pool_key", "seq"], unique=False)
    op.create_index("ix_rating_history_match_id", "rating_history", ["match_id"], unique=False)
    op.create_index("ix_matches_reported_at", "matches", ["reported_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_matches_reported_at", table_name="matches")
    op.drop_index("ix_rating_history_match_id", table_name="rating_history")
    op.drop_index("ix_rating_history_pool_key_seq", table_name="rating_history")
