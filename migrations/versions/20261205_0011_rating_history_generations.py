"""rating history generations: a pool's history rows carry its generation, the first column of
their key; the pool row names its current generation

A full recompute deletes the pool's history and writes it again (2,000,000 rows for a
1,000,000-game pool) in one transaction. The deleted rows stay in the index until a vacuum, and
rows written under the same keys go beside them: every leaf page of the pool splits, each new key
first visits the row it replaces, and the rewrite took three times as long as writing into an empty
table. A recompute now writes its rows under a generation above every pool's, so they fill the
index at its end, page after page; the rows it replaces are deleted as before. Existing rows and
pools are generation 0.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rating_pools") as batch:
        batch.add_column(sa.Column("history_gen", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("rating_history", recreate="always") as batch:
        batch.add_column(sa.Column("gen", sa.Integer(), server_default="0", nullable=False))
        batch.drop_constraint("pk_rating_history", type_="primary")
        batch.create_primary_key("pk_rating_history", ["gen", "player_id", "pool_key", "seq"])


def downgrade() -> None:
    with op.batch_alter_table("rating_history", recreate="always") as batch:
        batch.drop_constraint("pk_rating_history", type_="primary")
        batch.drop_column("gen")
        batch.create_primary_key("pk_rating_history", ["player_id", "pool_key", "seq"])
    with op.batch_alter_table("rating_pools") as batch:
        batch.drop_column("history_gen")
