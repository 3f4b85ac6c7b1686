"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29 11:36:27.107261
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "games",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("min_seats", sa.Integer(), nullable=False),
        sa.Column("max_seats", sa.Integer(), nullable=False),
        sa.Column("adjudicator", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("min_seats >= 1 AND max_seats >= min_seats", name=op.f("ck_games_seats_range")),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_games")),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("scope", sa.String(length=200), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column(
            "response",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "headers",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope", "key", name=op.f("pk_idempotency_keys")),
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column(
            "args",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("dedup_key", sa.String(length=200), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column(
            "result",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("timeout_seconds", sa.Integer(), nullable=False),
        sa.Column("enqueued_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name=op.f("ck_jobs_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    op.create_index("ix_jobs_dedup_key", "jobs", ["dedup_key"], unique=False)
    op.create_index("ix_jobs_status_deadline_at", "jobs", ["status", "deadline_at"], unique=False)
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("external_id", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("external_id", name=op.f("uq_players_external_id")),
    )
    op.create_index(op.f("ix_players_name"), "players", ["name"], unique=False)
    op.create_table(
        "events",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game_key", sa.String(length=64), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=True),
        sa.Column(
            "settings",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("seed", sa.String(length=128), nullable=False),
        sa.Column("seed_commitment", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("organizer_token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('registration', 'running', 'finished', 'cancelled')", name=op.f("ck_events_status")
        ),
        sa.ForeignKeyConstraint(["game_key"], ["games.key"], name=op.f("fk_events_game_key_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("organizer_token_hash", name=op.f("uq_events_organizer_token_hash")),
    )
    op.create_index(op.f("ix_events_game_key"), "events", ["game_key"], unique=False)
    op.create_table(
        "rating_pools",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("game_key", sa.String(length=64), nullable=True),
        sa.Column("character", sa.String(length=100), nullable=True),
        sa.Column(
            "settings",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_key"], ["games.key"], name=op.f("fk_rating_pools_game_key_games")),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_rating_pools")),
    )
    op.create_table(
        "entries",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("player_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("rating_at_entry", sa.Float(), nullable=True),
        sa.Column("tiebreak_value", sa.Float(), nullable=True),
        sa.Column(
            "characters",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("group", sa.String(length=32), nullable=True),
        sa.Column("organizer", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("dropped_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('active', 'dropped', 'withdrawn')", name=op.f("ck_entries_status")),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_entries_event_id_events"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_entries_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_entries")),
        sa.UniqueConstraint("event_id", "player_id", name=op.f("uq_entries_event_id_player_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_entries_token_hash")),
    )
    op.create_index("ix_entries_event_id_status", "entries", ["event_id", "status"], unique=False)
    op.create_index(op.f("ix_entries_player_id"), "entries", ["player_id"], unique=False)
    op.create_table(
        "ratings",
        sa.Column("pool_key", sa.String(length=128), nullable=False),
        sa.Column("player_id", sa.String(length=36), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("start_rating", sa.Float(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_ratings_player_id_players")),
        sa.ForeignKeyConstraint(
            ["pool_key"],
            ["rating_pools.key"],
            name=op.f("fk_ratings_pool_key_rating_pools"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("pool_key", "player_id", name=op.f("pk_ratings")),
    )
    op.create_index("ix_ratings_pool_key_rating", "ratings", ["pool_key", "rating"], unique=False)
    op.create_table(
        "stages",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column(
            "settings",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_stages_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stages")),
        sa.UniqueConstraint("event_id", "index", name=op.f("uq_stages_event_id_index")),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("stage_id", sa.String(length=36), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column(
            "details",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_rounds_event_id_events"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["stage_id"], ["stages.id"], name=op.f("fk_rounds_stage_id_stages"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.UniqueConstraint("stage_id", "number", name=op.f("uq_rounds_stage_id_number")),
    )
    op.create_index("ix_rounds_event_id", "rounds", ["event_id"], unique=False)
    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("round_id", sa.String(length=36), nullable=False),
        sa.Column("table", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("best_of", sa.Integer(), nullable=False),
        sa.Column(
            "game_log",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "details",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'reported', 'disputed', 'confirmed', 'bye', 'void')",
            name=op.f("ck_matches_status"),
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_matches_event_id_events"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_matches_round_id_rounds"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("round_id", "table", name=op.f("uq_matches_round_id_table")),
    )
    op.create_index("ix_matches_event_id_status", "matches", ["event_id", "status"], unique=False)
    op.create_table(
        "rating_history",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("pool_key", sa.String(length=128), nullable=False),
        sa.Column("player_id", sa.String(length=36), nullable=False),
        sa.Column("match_id", sa.String(length=36), nullable=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_rating_history_match_id_matches"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_rating_history_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["pool_key"],
            ["rating_pools.key"],
            name=op.f("fk_rating_history_pool_key_rating_pools"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
    )
    op.create_index(
        "ix_rating_history_player_id_pool_key",
        "rating_history",
        ["player_id", "pool_key", "seq"],
        unique=False,
    )
    op.create_table(
        "result_history",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("match_id", sa.String(length=36), nullable=False),
        sa.Column("match_version", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_result_history_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_result_history")),
    )
    op.create_index(op.f("ix_result_history_match_id"), "result_history", ["match_id"], unique=False)
    op.create_table(
        "result_reports",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("match_id", sa.String(length=36), nullable=False),
        sa.Column("reporter", sa.String(length=64), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_result_reports_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_result_reports")),
        sa.UniqueConstraint("match_id", "reporter", name=op.f("uq_result_reports_match_id_reporter")),
    )
    op.create_table(
        "seats",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("match_id", sa.String(length=36), nullable=False),
        sa.Column("entry_id", sa.String(length=36), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("character", sa.String(length=100), nullable=True),
        sa.Column("first_token", sa.Boolean(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("body_points", sa.Float(), nullable=True),
        sa.Column("differential", sa.Float(), nullable=True),
        sa.Column("violation", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["entry_id"], ["entries.id"], name=op.f("fk_seats_entry_id_entries")),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_seats_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seats")),
        sa.UniqueConstraint("match_id", "entry_id", name=op.f("uq_seats_match_id_entry_id")),
        sa.UniqueConstraint("match_id", "seat", name=op.f("uq_seats_match_id_seat")),
    )
    op.create_index(op.f("ix_seats_entry_id"), "seats", ["entry_id"], unique=False)


def downgrade() -> None:

    op.drop_index(op.f("ix_seats_entry_id"), table_name="seats")
    op.drop_table("seats")
    op.drop_table("result_reports")
    op.drop_index(op.f("ix_result_history_match_id"), table_name="result_history")
    op.drop_table("result_history")
    op.drop_index("ix_rating_history_player_id_pool_key", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_matches_event_id_status", table_name="matches")
    op.drop_table("matches")
    op.drop_index("ix_rounds_event_id", table_name="rounds")
    op.drop_table("rounds")
    op.drop_table("stages")
    op.drop_index("ix_ratings_pool_key_rating", table_name="ratings")
    op.drop_table("ratings")
    op.drop_index(op.f("ix_entries_player_id"), table_name="entries")
    op.drop_index("ix_entries_event_id_status", table_name="entries")
    op.drop_table("entries")
    op.drop_table("rating_pools")
    op.drop_index(op.f("ix_events_game_key"), table_name="events")
    op.drop_table("events")
    op.drop_index(op.f("ix_players_name"), table_name="players")
    op.drop_table("players")
    op.drop_index("ix_jobs_status_deadline_at", table_name="jobs")
    op.drop_index("ix_jobs_dedup_key", table_name="jobs")
    op.drop_table("jobs")
    op.drop_table("idempotency_keys")
    op.drop_table("games")
