"""Pydantic schemas of the HTTP contract (api.md). Field names are fixed; add, never rename."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.api.verdicts import MatchVerdict
from app.core.games.battlebooks import BODY_POINTS_LIMIT
from app.core.vocabulary import DeliveryStatus, LiveEventType, WebhookStatus


class Strict(BaseModel):
    """Request bodies: unknown fields and non-finite numbers are refused (422), never stored."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class StrictTypes(Strict):
    """Request bodies whose types are strict too: `true` is not a number, "1" is not an integer."""

    model_config = ConfigDict(strict=True)


# --- players ---------------------------------------------------------------------------------
class PlayerCreate(Strict):
    name: str = Field(min_length=1, max_length=200)
    external_id: str | None = Field(default=None, min_length=1, max_length=200)


class PlayerRead(BaseModel):
    id: str
    name: str
    external_id: str | None
    created_at: datetime


class PlayerPage(BaseModel):
    items: list[PlayerRead]
    next_cursor: str | None = None


# --- games -----------------------------------------------------------------------------------
class GameCreate(Strict):
    key: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str = Field(min_length=1, max_length=200)
    min_seats: int = Field(ge=1, le=64)
    max_seats: int = Field(ge=1, le=64)
    adjudicator: str | None = Field(default=None, max_length=64)

    @model_validator(mode="after")
    def _range(self) -> GameCreate:
        if self.max_seats < self.min_seats:
            raise ValueError("max_seats must be at least min_seats")
        return self


class GameRead(BaseModel):
    key: str
    name: str
    min_seats: int
    max_seats: int
    adjudicator: str | None


# --- events ----------------------------------------------------------------------------------
class EventCreate(Strict):
    name: str = Field(min_length=1, max_length=200)
    game: str = Field(min_length=1, max_length=64)
    preset: str | None = Field(default=None, max_length=64)
    settings: dict[str, Any] | None = None
    seed: str | None = Field(default=None, min_length=8, max_length=128)


class EventUpdate(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    settings: dict[str, Any] | None = None


class EventWinner(BaseModel):
    entry_id: str
    name: str


class EventRead(BaseModel):
    id: str
    name: str
    game: str
    status: str
    preset: str | None
    settings: dict[str, Any]
    seed_commitment: str
    seed: str | None = Field(default=None, description="revealed once the event is finished")
    version: int
    entries: int
    created_at: datetime
    current_stage: int | None = Field(
        default=None,
        description="the stage the event is at: the active one; once finished, the last one played "
        "(null before the start)",
    )
    current_round: int | None = Field(
        default=None, description="the last round paired in that stage (null before its first)"
    )
    winner: EventWinner | None = Field(
        default=None,
        description="once finished: who won, across stages (a playoff's or a final's winner); null "
        "while it runs, and when first place is shared",
    )


class EventPage(BaseModel):
    items: list[EventRead]
    next_cursor: str | None = None


class PresetRead(BaseModel):
    name: str
    settings: dict[str, Any] = Field(description="the preset's settings document, before overrides")


class PresetPage(BaseModel):
    items: list[PresetRead]
    next_cursor: str | None = None


class EventCreated(EventRead):
    organizer_token: str = Field(description="shown once; keep it")


# --- entries ---------------------------------------------------------------------------------
class EntryCreate(Strict):
    player_id: str | None = None
    name: str | None = Field(default=None, min_length=1, max_length=200)
    external_id: str | None = Field(
        default=None, min_length=1, max_length=200, description="a federation or club id; wins over the name"
    )
    rating: float | None = Field(default=None, ge=-10_000, le=10_000, description="starting rating")
    seed: int | None = Field(default=None, ge=1, le=100_000, description="seed number, 1 the top")
    club: str | None = Field(default=None, min_length=1, max_length=100, description="club or team")
    characters: list[str] = Field(default_factory=list, max_length=16)
    organizer: bool = False

    @model_validator(mode="after")
    def _who(self) -> EntryCreate:
        if (self.player_id is None) == (self.name is None):
            raise ValueError("give exactly one of player_id or name")
        return self


class EntryRead(BaseModel):
    id: str
    event_id: str
    player_id: str
    name: str
    status: str
    characters: list[str]
    sealed: bool = Field(
        default=False,
        description="BATTLEBOOKS Secret Wars: the pack is assigned but sealed until game 1's pairings; "
        "`characters` is then empty for everyone but the organizer",
    )
    group: str | None
    organizer: bool
    tiebreak_value: float | None
    rating: float | None = None
    seed: int | None = None
    club: str | None = None
    checked_in: bool = False
    matched_by: str = Field(
        default="new", description="how the player was found: player_id, external_id, name, or new"
    )
    created_at: datetime


class EntryCreated(EntryRead):
    entry_token: str = Field(description="shown once; the player reports results with it")


class CheckInRead(BaseModel):
    entry_id: str
    checked_in: bool
    checked_in_at: datetime | None


class IdentityEvent(BaseModel):
    event_id: str
    name: str
    entry_id: str


class IdentityRead(BaseModel):
    entry_id: str
    player_id: str
    name: str
    external_id: str | None
    matched_by: str
    other_events: list[IdentityEvent]


class ForbiddenPairs(Strict):
    pairs: list[list[str]] = Field(max_length=10_000)


class HistoryEntryRead(BaseModel):
    action: str
    actor: str
    payload: dict[str, Any]
    at: datetime


class SwapIn(Strict):
    entries: list[str] = Field(min_length=2, max_length=2)


# --- jobs ------------------------------------------------------------------------------------
class JobAccepted(BaseModel):
    job_id: str


class JobRead(BaseModel):
    id: str
    kind: str
    status: Literal["queued", "running", "done", "failed"]
    progress: float
    result: dict[str, Any] | None
    error: str | None
    attempts: int
    created_at: datetime
    finished_at: datetime | None
    request_id: str | None = None


class Health(BaseModel):
    status: str
    version: str
    database: str | None = None
    queue: str | None = None


# --- rounds, matches, results ----------------------------------------------------------------
class ResultSeatIn(StrictTypes):
    entry_id: str
    place: int | None = Field(default=None, ge=1, le=64)
    score: float | None = None
    body_points: float | None = Field(
        default=None,
        ge=-BODY_POINTS_LIMIT,
        le=BODY_POINTS_LIMIT,
        description=f"BATTLEBOOKS: the hero's body points at the end, between ±{BODY_POINTS_LIMIT:,}",
    )
    differential: float | None = Field(
        default=None,
        ge=-2 * BODY_POINTS_LIMIT,
        le=2 * BODY_POINTS_LIMIT,
        description="in a two-seat game: + to the winner, − to the loser, the same gap on both seats "
        "(0 when undecided); left out, it follows from both seats' body points",
    )
    character: str | None = Field(default=None, max_length=100)
    violation: bool = False


class ResultIn(Strict):
    outcome: Literal["played", "draw", "timeout", "forfeit", "void"] | None = None
    seats: list[ResultSeatIn] = Field(default_factory=list, max_length=64)
    game_log: dict[str, Any] | None = None


class RoundCreate(Strict):
    tables: list[list[str]] | None = Field(
        default=None, description="exactly these tables (manual pairing, heats, an external schedule)"
    )


class SeatRead(BaseModel):
    entry_id: str
    name: str
    seat: int
    character: str | None = None
    first_token: bool = False


class SeatResultRead(BaseModel):
    entry_id: str
    place: int | None
    score: float | None
    body_points: float | None
    differential: float | None
    violation: bool


class MatchResultRead(BaseModel):
    outcome: str
    seats: list[SeatResultRead]


class HistoryRead(BaseModel):
    action: str
    actor: str
    version: int
    payload: dict[str, Any]
    at: datetime


class MatchRead(BaseModel):
    id: str
    event_id: str
    round: int
    stage: int
    table: int
    status: str
    best_of: int
    version: int
    seats: list[SeatRead]
    result: MatchResultRead | None = None
    claims: int = Field(default=0, description="players' reports filed so far")
    history: list[HistoryRead] | None = None
    verdict: MatchVerdict | None = Field(
        default=None, description="what decided a match reported by its game log, as judged from it"
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="after a correction of a closed stage: what built on it is now stale, and how",
    )


class RoundRead(BaseModel):
    number: int
    stage: int
    matches: list[MatchRead]
    pairing: dict[str, Any] | None = Field(
        default=None,
        description="why a generated Swiss round is paired as it is: each pair's score gap, rank "
        "distance, rematch flag and cost, the bye and its recipient's earlier byes",
    )
    swaps: list[dict[str, Any]] = Field(
        default_factory=list, description="the organizer's swaps made after the round was paired"
    )


class UndoneRound(BaseModel):
    round: int
    stage: int
    tables: list[list[str]] = Field(description="the tables the undone round had")


class StandingRowRead(BaseModel):
    rank: int
    entry_id: str
    name: str
    points: float
    games: int
    wins: int
    differential: float | None = None
    average: float | None = None
    tiebreaks: dict[str, float | None]
    decided_by: str | None
    group: str | None = None
    status: str


class StandingsRead(BaseModel):
    event_id: str
    stage: int | None
    group: str | None = None
    tiebreaks: list[str] = Field(default_factory=list, description="the tie-break chain applied, in order")
    tiebreaks_from: str = Field(
        default="settings", description="settings, or default:<format> when the event names none"
    )
    final: bool = Field(
        default=False,
        description="true once the stage has closed or the event ended: no more play changes them; "
        "false while they are provisional",
    )
    rows: list[StandingRowRead]


class LifecycleRead(BaseModel):
    event: EventRead
    stage: int | None = None
    round: RoundRead | None = None
    job_id: str | None = None
    note: str | None = Field(
        default=None, description="what the organizer must do before the stage can go on"
    )


# --- exports ---------------------------------------------------------------------------------
class CrossCellRead(BaseModel):
    round: int
    seat: int | None = Field(description="0 the first seat; null for a bye")
    opponents: list[str]
    result: str
    points: float
    place: int | None = None


class CrossRowRead(BaseModel):
    rank: int
    entry_id: str
    name: str
    points: float
    cells: list[CrossCellRead]
    versus: dict[str, float] = Field(description="opponent entry id → points scored against them")


class CrossTableRead(BaseModel):
    event_id: str
    stage: int | None
    rounds: list[int]
    rows: list[CrossRowRead]


# --- live updates and webhooks ---------------------------------------------------------------


class LiveEvent(BaseModel):
    """One change of an event, as a stream's `data:` and a webhook's body carry it."""

    id: int = Field(description="the outbox id: the SSE `id`, the `webhook-id`; increases with every change")
    type: LiveEventType | Literal["stream.reset"] = Field(
        description="what changed; a stream's `stream.reset` (`data: {reason}`) says: read the event again"
    )
    event_id: str
    timestamp: datetime
    data: dict[str, Any] = Field(description='what changed (api.md "Live updates"); always has `event_id`')


class WebhookCreate(Strict):
    url: str = Field(min_length=1, max_length=2000, description="http or https; a public address")
    events: list[LiveEventType] | None = Field(
        default=None, min_length=1, max_length=32, description="the event types to send; default every type"
    )


class WebhookRead(BaseModel):
    id: str
    event_id: str | None = Field(description="the event it follows; null: every event (the admin's)")
    url: str
    events: list[str] | None = Field(description="the event types it is sent; null: every type")
    status: WebhookStatus
    disabled_reason: str | None = Field(description="why it was disabled (a day of failed deliveries)")
    failing_since: datetime | None = Field(
        description="the first failed attempt since the last delivered one"
    )
    last_success_at: datetime | None
    created_at: datetime


class WebhookCreated(WebhookRead):
    secret: str = Field(
        description="the signing secret (Standard Webhooks, `whsec_…`); shown only in this answer"
    )


class DeliveryRead(BaseModel):
    id: str
    webhook_id: str
    event_id: int = Field(description="the outbox id delivered (`webhook-id`): receivers de-duplicate by it")
    type: str
    status: DeliveryStatus
    attempts: int
    last_status_code: int | None = Field(description="the endpoint's HTTP status at the last attempt")
    last_error: str | None
    next_attempt_at: datetime | None = Field(description="when a pending delivery is tried again")
    last_attempt_at: datetime | None
    delivered_at: datetime | None
    created_at: datetime


class DeliveryPage(BaseModel):
    items: list[DeliveryRead]
    next_cursor: str | None = None
