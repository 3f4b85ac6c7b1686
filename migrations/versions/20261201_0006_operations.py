"""operations: the request that enqueued a job, and the indexes the retention prunes by

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("request_id", sa.String(length=200), nullable=True))
    op.create_index("ix_jobs_finished_at", "jobs", ["finished_at"])
    op.create_index("ix_idempotency_keys_created_at", "idempotency_keys", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_keys_created_at", table_name="idempotency_keys")
    op.drop_index("ix_jobs_finished_at", table_name="jobs")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("request_id")
