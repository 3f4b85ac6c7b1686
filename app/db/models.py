"""ORM models for the whole spec (formats.md "Words", api.md "Resources").

Ids are UUID strings (portable between Postgres and SQLite, safe to show to clients).
Relationships are ``lazy="raise"``: every load is explicit in the services.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    PrimaryKeyConstraint,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.identity import name_key as identity_key
from app.core.vocabulary import (
    DeliveryStatus,
    EntryStatus,
    EventStatus,
    JobStatus,
    MatchStatus,
    StageStatus,
    WebhookStatus,
)
from app.db.base import Base, UTCDateTime, id_column, new_mark, utcnow

JSONType = JSON().with_variant(JSONB(), "postgresql")
# A 64-bit counter on Postgres; on SQLite, INTEGER PRIMARY KEY is the rowid (with AUTOINCREMENT: never reused)
SeqType = BigInteger().with_variant(Integer(), "sqlite")


def _created() -> Mapped[datetime]:
    return mapped_column(UTCDateTime(), default=utcnow, nullable=False)


class Player(Base):
    """One person, the same identity across events (battlebooks.md: one name everywhere)."""

    __tablename__ = "players"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False, index=True)
    # The name as identities are matched: NFKC, case-folded, spaces collapsed (app/core/identity.py).
    name_key: Mapped[str] = mapped_column(
        String(200),
        nullable=False,
        index=True,
        default=lambda ctx: identity_key(ctx.get_current_parameters()["name"]),
    )
    external_id: Mapped[str | None] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = _created()


class Game(Base):
    __tablename__ = "games"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    min_seats: Mapped[int] = mapped_column(Integer, nullable=False)
    max_seats: Mapped[int] = mapped_column(Integer, nullable=False)
    adjudicator: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = _created()

    __table_args__ = (CheckConstraint("min_seats >= 1 AND max_seats >= min_seats", name="seats_range"),)


class Event(Base):
    __tablename__ = "events"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    game_key: Mapped[str] = mapped_column(ForeignKey("games.key"), nullable=False, index=True)
    preset: Mapped[str | None] = mapped_column(String(64))
    settings: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    seed: Mapped[str] = mapped_column(String(128), nullable=False)
    seed_commitment: Mapped[str] = mapped_column(String(64), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=EventStatus.REGISTRATION)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    organizer_token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    # Pairs of entry ids never paired together (PUT /v1/events/{id}/forbidden-pairs).
    forbidden_pairs: Mapped[list[Any]] = mapped_column(JSONType, nullable=False, default=list)
    # The entry that won, once the event is finished (app/services/summary.py); kept up to date by
    # corrections. No foreign key: entries already point at their event.
    winner_entry_id: Mapped[str | None] = mapped_column(String(36))
    # Replaced by every change of the event, in the change's transaction (``reads.lock_event``): the
    # key of the standings cache (app/services/standings.py). Random, never a counter, so an event
    # deleted and imported again (or a database restored) can never meet a value cached before.
    standings_mark: Mapped[int] = mapped_column(
        BigInteger, nullable=False, default=new_mark, server_default=text("0")
    )
    created_at: Mapped[datetime] = _created()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    __mapper_args__ = {"version_id_col": version}
    __table_args__ = (
        CheckConstraint("status IN ('registration', 'running', 'finished', 'cancelled')", name="status"),
    )


class Entry(Base):
    """A player's registration in an event."""

    __tablename__ = "entries"

    id: Mapped[str] = id_column()
    event_id: Mapped[str] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), nullable=False)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), nullable=False, index=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    rating_at_entry: Mapped[float | None] = mapped_column(Float)
    seed: Mapped[int | None] = mapped_column(Integer)
    club: Mapped[str | None] = mapped_column(String(100))
    # How the entry found its player: player_id, external_id, name (an existing player) or new.
    matched_by: Mapped[str] = mapped_column(String(16), nullable=False, default="new")
    checked_in_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    tiebreak_value: Mapped[float | None] = mapped_column(Float)
    characters: Mapped[list[Any]] = mapped_column(JSONType, nullable=False, default=list)
    group: Mapped[str | None] = mapped_column(String(32))
    organizer: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=EntryStatus.ACTIVE)
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_at: Mapped[datetime] = _created()
    dropped_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        UniqueConstraint("event_id", "player_id"),
        CheckConstraint("status IN ('active', 'dropped', 'withdrawn')", name="status"),
        Index("ix_entries_event_id_status", "event_id", "status"),
    )


class Stage(Base):
    __tablename__ = "stages"

    id: Mapped[str] = id_column()
    event_id: Mapped[str] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), nullable=False)
    index: Mapped[int] = mapped_column(Integer, nullable=False)
    format: Mapped[str] = mapped_column(String(32), nullable=False)
    settings: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    # What the stage drew and keeps between rounds: its entries, seeded orders, bracket, schedule.
    details: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=StageStatus.PENDING)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (UniqueConstraint("event_id", "index"),)


class Round(Base):
    __tablename__ = "rounds"

    id: Mapped[str] = id_column()
    event_id: Mapped[str] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), nullable=False)
    stage_id: Mapped[str] = mapped_column(ForeignKey("stages.id", ondelete="CASCADE"), nullable=False)
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    details: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (
        UniqueConstraint("stage_id", "number"),
        Index("ix_rounds_event_id", "event_id"),
        # what a match's (round_id, event_id) refers to: a match belongs to its round's event
        Index("ix_rounds_id_event_id", "id", "event_id", unique=True),
    )


class Match(Base):
    """One game at one table. Its outcome lives here; per-seat results live on its seats."""

    __tablename__ = "matches"

    id: Mapped[str] = id_column()
    event_id: Mapped[str] = mapped_column(String(36), nullable=False)
    round_id: Mapped[str] = mapped_column(String(36), nullable=False)
    table: Mapped[int] = mapped_column(Integer, nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=MatchStatus.PENDING)
    outcome: Mapped[str | None] = mapped_column(String(16))
    best_of: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    game_log: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    details: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    reported_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = _created()

    seats: Mapped[list[Seat]] = relationship(
        back_populates="match", lazy="raise", order_by="Seat.seat", cascade="all, delete-orphan"
    )

    __mapper_args__ = {"version_id_col": version}
    __table_args__ = (
        # the round's row, which names the event too (migration 0012): a match is in its round's
        # event, and writing a round's matches checks the round, not the event's row each time
        ForeignKeyConstraint(["round_id", "event_id"], ["rounds.id", "rounds.event_id"], ondelete="CASCADE"),
        UniqueConstraint("round_id", "table"),
        Index("ix_matches_event_id_status", "event_id", "status"),
        Index("ix_matches_reported_at", "reported_at"),
        CheckConstraint(
            "status IN ('pending', 'reported', 'disputed', 'confirmed', 'bye', 'void')", name="status"
        ),
    )


class Seat(Base):
    """One seat of a match, with that seat's part of the result once reported."""

    __tablename__ = "seats"

    id: Mapped[str] = id_column()
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), nullable=False)
    entry_id: Mapped[str] = mapped_column(ForeignKey("entries.id"), nullable=False, index=True)
    seat: Mapped[int] = mapped_column(Integer, nullable=False)
    character: Mapped[str | None] = mapped_column(String(100))
    first_token: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    place: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[float | None] = mapped_column(Float)
    body_points: Mapped[float | None] = mapped_column(Float)
    differential: Mapped[float | None] = mapped_column(Float)
    violation: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)

    match: Mapped[Match] = relationship(back_populates="seats", lazy="raise")

    __table_args__ = (UniqueConstraint("match_id", "seat"), UniqueConstraint("match_id", "entry_id"))


class ResultReport(Base):
    """One reporter's submission for a match (an entry's claim, or the organizer's ruling)."""

    __tablename__ = "result_reports"

    id: Mapped[str] = id_column()
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), nullable=False)
    reporter: Mapped[str] = mapped_column(String(64), nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (UniqueConstraint("match_id", "reporter"),)


class ResultHistory(Base):
    """The audit trail of a match's result: every report, confirmation, correction and ruling."""

    __tablename__ = "result_history"

    id: Mapped[str] = id_column()
    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), nullable=False, index=True
    )
    match_version: Mapped[int] = mapped_column(Integer, nullable=False)
    action: Mapped[str] = mapped_column(String(16), nullable=False)
    actor: Mapped[str] = mapped_column(String(64), nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False)
    created_at: Mapped[datetime] = _created()


class Staff(Base):
    """A named member of an event's staff: a scorekeeper or a judge (api.md "Staff"), speaking
    with its own token (only the token's hash is kept). A revoked member keeps its row, so the
    audit histories that name it (``staff:<id>``) still say who it was; its token is refused."""

    __tablename__ = "staff"

    id: Mapped[str] = id_column()
    event_id: Mapped[str] = mapped_column(
        ForeignKey("events.id", ondelete="CASCADE"), nullable=False, index=True
    )
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_by: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = _created()
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (CheckConstraint("role IN ('scorekeeper', 'judge')", name="role"),)


class Announcement(Base):
    """A short message the organizer posts to the projector and every open page of its event
    (api.md "Announcements"), announced on the live stream and to webhooks."""

    __tablename__ = "announcements"

    id: Mapped[str] = id_column()
    event_id: Mapped[str] = mapped_column(
        ForeignKey("events.id", ondelete="CASCADE"), nullable=False, index=True
    )
    text: Mapped[str] = mapped_column(String(500), nullable=False)
    actor: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = _created()


class RoundClock(Base):
    """An event's round timer (api.md "The round clock"): one row an event, made at its first
    start. While it runs, ``ends_at`` is when time is up; paused, ``remaining_s`` is what is left.
    ``tables`` holds the extra seconds given to single tables (a late start, a judge call), by match."""

    __tablename__ = "round_clocks"

    event_id: Mapped[str] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int | None] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(16), nullable=False)
    duration_s: Mapped[int] = mapped_column(Integer, nullable=False)
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    remaining_s: Mapped[float | None] = mapped_column(Float)
    tables: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    updated_at: Mapped[datetime] = _created()

    __table_args__ = (CheckConstraint("state IN ('running', 'paused', 'ended')", name="state"),)


class Season(Base):
    """A league's season (api.md "Seasons"): one table across the events attached to it, from a
    points table by place (``points``) and, optionally, each player's ``best_of`` results. Its
    organizer speaks with a token of its own (only the hash is kept)."""

    __tablename__ = "seasons"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    points: Mapped[list[Any]] = mapped_column(JSONType, nullable=False)
    best_of: Mapped[int | None] = mapped_column(Integer)
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_by: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = _created()


class SeasonEvent(Base):
    """An event counted in a season."""

    __tablename__ = "season_events"

    season_id: Mapped[str] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    event_id: Mapped[str] = mapped_column(
        ForeignKey("events.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    added_at: Mapped[datetime] = _created()


class EventHistory(Base):
    """The audit trail of an event's own changes: undone rounds, swaps, identity splits, check-in
    drops, cancellation (a match's result has its own, ``ResultHistory``)."""

    __tablename__ = "event_history"

    id: Mapped[str] = id_column()
    event_id: Mapped[str] = mapped_column(
        ForeignKey("events.id", ondelete="CASCADE"), nullable=False, index=True
    )
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    actor: Mapped[str] = mapped_column(String(64), nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False)
    created_at: Mapped[datetime] = _created()


class RatingPool(Base):
    __tablename__ = "rating_pools"

    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    game_key: Mapped[str | None] = mapped_column(ForeignKey("games.key"))
    character: Mapped[str | None] = mapped_column(String(100))
    settings: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    # the high-water mark of the pool's history: its last row's seq and match (ratings jobs)
    last_seq: Mapped[int | None] = mapped_column(Integer)
    last_match_id: Mapped[str | None] = mapped_column(String(36))
    # the generation of the pool's history rows (``RatingHistory.gen``): a recompute moves it above
    # every pool's
    history_gen: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    created_at: Mapped[datetime] = _created()


class Rating(Base):
    __tablename__ = "ratings"

    pool_key: Mapped[str] = mapped_column(
        ForeignKey("rating_pools.key", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    rating: Mapped[float] = mapped_column(Float, nullable=False)
    games: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    start_rating: Mapped[float | None] = mapped_column(Float)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    __table_args__ = (Index("ix_ratings_pool_key_rating", "pool_key", "rating"),)


class RatingHistory(Base):
    """One rated seat of one game in a pool, in rating order (``seq``). Derived data, rewritten by a
    recompute: no foreign keys (their per-row triggers doubled the rewrite; migration 0003), and
    its natural key as its primary key — the one index a rewrite fills (migration 0009). ``gen`` is
    the pool's history generation (``RatingPool.history_gen``), the key's first column: a recompute
    writes its rows under a generation above every pool's, so they fill the index at its end
    instead of beside the rows they replace (migration 0011)."""

    __tablename__ = "rating_history"

    player_id: Mapped[str] = mapped_column(String(36), nullable=False)
    pool_key: Mapped[str] = mapped_column(String(128), nullable=False)
    seq: Mapped[int] = mapped_column(Integer, nullable=False, autoincrement=False)
    match_id: Mapped[str | None] = mapped_column(String(36))
    before: Mapped[float] = mapped_column(Float, nullable=False)
    after: Mapped[float] = mapped_column(Float, nullable=False)
    gen: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")

    __table_args__ = (PrimaryKeyConstraint("gen", "player_id", "pool_key", "seq"),)


class Job(Base):
    """A durable job: the row is the truth, the queue only carries its id."""

    __tablename__ = "jobs"

    id: Mapped[str] = id_column()
    kind: Mapped[str] = mapped_column(String(64), nullable=False)
    args: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False, default=dict)
    dedup_key: Mapped[str | None] = mapped_column(String(200))
    # the request that enqueued the job (X-Request-ID), carried into the job's log lines
    request_id: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=JobStatus.QUEUED)
    progress: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    error: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    timeout_seconds: Mapped[int] = mapped_column(Integer, nullable=False, default=600)
    enqueued_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = _created()

    __table_args__ = (
        Index("ix_jobs_status_deadline_at", "status", "deadline_at"),
        Index("ix_jobs_dedup_key", "dedup_key"),
        Index("ix_jobs_finished_at", "finished_at"),
        CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="status"),
    )


class IdempotencyKey(Base):
    """The first answer to a creating POST, replayed for a retry with the same key and body.

    Nothing in the row is usable without the server's key and the client's Idempotency-Key: the row
    is found by an HMAC of the key (and the caller's scope) under the answers' key (``SealingKey``),
    and the answer — which may hold a new token — is sealed with AES-GCM under a second, independent
    derivation (app/api/idempotency.py)."""

    __tablename__ = "idempotency_keys"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    # NULL only inside the transaction that claimed the key and is still running the request
    sealed: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (Index("ix_idempotency_keys_created_at", "created_at"),)


class SealingKey(Base):
    """A key of the server's own, kept sealed under the server's key (app/services/keyring.py): the
    key stored idempotent answers are derived from (``purpose`` ``idempotency``). Rotating the
    server's key re-seals it and keeps it, so the answers stored before still replay."""

    __tablename__ = "sealing_keys"

    purpose: Mapped[str] = mapped_column(String(32), primary_key=True)
    sealed: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = _created()


class OutboxEvent(Base):
    """One change of an event as its live stream and webhooks announce it, written in the same
    transaction as the change (app/services/outbox.py). ``id`` orders an event's changes as they
    committed: every change of an event is made with the event row locked."""

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(SeqType, primary_key=True, autoincrement=True)
    # no foreign key: an event's deletion is itself announced, and the row outlives the event
    event_id: Mapped[str] = mapped_column(String(36), nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    data: Mapped[dict[str, Any]] = mapped_column(JSONType, nullable=False)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (
        Index("ix_outbox_event_id_id", "event_id", "id"),
        Index("ix_outbox_created_at", "created_at"),
        {"sqlite_autoincrement": True},
    )


class Webhook(Base):
    """An endpoint told of events' changes: one event's (its organizer's) or every event's (the
    admin's, ``event_id`` null). The signing secret is kept encrypted (app/services/webhooks.py)."""

    __tablename__ = "webhooks"

    id: Mapped[str] = id_column()
    event_id: Mapped[str | None] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(Text, nullable=False)
    # the event types it wants; null: every type
    types: Mapped[list[Any] | None] = mapped_column(JSONType)
    secret: Mapped[str] = mapped_column(Text, nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=WebhookStatus.ACTIVE)
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    # the first failed attempt since the last delivered one: a day of failures disables the endpoint
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_success_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = _created()

    __table_args__ = (CheckConstraint("status IN ('active', 'disabled')", name="status"),)


class WebhookDelivery(Base):
    """One outbox event owed to one endpoint: its attempts, its last error, when the next is due."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[str] = id_column()
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False)
    outbox_id: Mapped[int] = mapped_column(SeqType, nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=DeliveryStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = _created()

    __table_args__ = (
        Index("ix_webhook_deliveries_webhook_id_created_at", "webhook_id", "created_at"),
        Index("ix_webhook_deliveries_status_next_attempt_at", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_created_at", "created_at"),
        CheckConstraint("status IN ('pending', 'delivered', 'failed')", name="status"),
    )
