"""standings mark: a per-event value that every change of the event replaces, in the change's own
transaction (``reads.lock_event``); the standings cache of each process is keyed by it
(app/services/standings.py, docs/architecture.md "The standings cache")

Existing events start at 0; the first change gives each a random value, as a new event gets.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("standings_mark", sa.BigInteger(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("standings_mark")
