"""a match refers to its round and its event through one key, the round's (id, event_id)

A match named its event and its round by two foreign keys, so writing a round's 5,000 matches
looked up the event's row 5,000 times; that row is updated by every result (its standings mark), and
until a vacuum every lookup walks its dead versions (some 0.3 ms each after a 10,000-entry round's
results: 1.5 s of the pairing). The match's (round_id, event_id) now refers to the round's
(id, event_id), a unique index of rounds: each insert looks up the round just written, the event's
row not at all, and a match can no longer name another event than its round's. Deleting an event
still deletes its matches (through its rounds).

On SQLite the matches table is rebuilt; ``migrations/env.py`` turns foreign keys off for it, so that
dropping the old table does not delete the seats, reports and history that refer to it.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06 09:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_rounds_id_event_id", "rounds", ["id", "event_id"], unique=True)
    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint("fk_matches_event_id_events", type_="foreignkey")
        batch.drop_constraint("fk_matches_round_id_rounds", type_="foreignkey")
        batch.create_foreign_key(
            "fk_matches_round_id_rounds",
            "rounds",
            ["round_id", "event_id"],
            ["id", "event_id"],
            ondelete="CASCADE",
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint("fk_matches_round_id_rounds", type_="foreignkey")
        batch.create_foreign_key(
            "fk_matches_round_id_rounds", "rounds", ["round_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_foreign_key(
            "fk_matches_event_id_events", "events", ["event_id"], ["id"], ondelete="CASCADE"
        )
    op.drop_index("ix_rounds_id_event_id", table_name="rounds")
