"""ship the game catalog of api.md

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 12:20:00
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAMES = [
    ("generic", "Generic game", 2, 8, None),
    ("titan-the-arena", "Titan: The Arena", 3, 5, "titan-arena"),
    ("colossal-arena", "Colossal Arena", 3, 5, "titan-arena"),
    ("rite-of-command", "Rite of Command", 2, 2, "rite-of-command"),
    ("strategic-titan", "Strategic Titan", 2, 6, "strategic-titan"),
    ("titan", "Titan", 2, 6, None),
    ("battlebooks", "BATTLEBOOKS", 2, 8, None),
    ("seasons", "Seasons", 2, 4, None),
    ("puerto-rico", "Puerto Rico", 3, 5, None),
]

games = sa.table(
    "games",
    sa.column("key", sa.String),
    sa.column("name", sa.String),
    sa.column("min_seats", sa.Integer),
    sa.column("max_seats", sa.Integer),
    sa.column("adjudicator", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    now = datetime.now(UTC)
    op.bulk_insert(
        games,
        [
            {"key": k, "name": n, "min_seats": lo, "max_seats": hi, "adjudicator": adj, "created_at": now}
            for k, n, lo, hi, adj in GAMES
        ],
    )


def downgrade() -> None:
    op.execute(games.delete().where(games.c.key.in_([g[0] for g in GAMES])))
