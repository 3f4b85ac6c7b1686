"""sealing keys: the key stored idempotent answers are derived from, sealed under the server's key

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-08 09:00:00

The stored answers written before were found and sealed by keys derived from public values (the
caller's scope, the route) and the client's Idempotency-Key alone, which a guessable key gives
away; they are deleted (a client retrying across the upgrade runs its request once more, as after
the keys' 24 h expiry). Webhook secrets stored in clear are sealed by the first process that starts
with a server key (app/services/keyring.py), which a migration does not hold.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sealing_keys",
        sa.Column("purpose", sa.String(length=32), nullable=False),
        sa.Column("sealed", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("purpose", name=op.f("pk_sealing_keys")),
    )
    op.execute("DELETE FROM idempotency_keys")


def downgrade() -> None:
    op.execute("DELETE FROM idempotency_keys")
    op.drop_table("sealing_keys")
