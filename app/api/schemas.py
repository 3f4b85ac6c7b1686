"""Pydantic schemas of the HTTP contract (api.md). Field names are fixed; add, never rename."""

from __future__ import annotations

import types
import unicodedata
from datetime import datetime
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from app.api.verdicts import MatchVerdict
from app.core.games.battlebooks import BODY_POINTS_LIMIT
from app.core.vocabulary import (
    DeliveryStatus,
    EntryStatus,
    EventStatus,
    JobKindName,
    JobStatus,
    LiveEventType,
    MatchStatus,
    Outcome,
    WebhookStatus,
)

# characters that show nothing: controls, format characters (zero-width space, joiners, marks of
# direction), separators, combining marks with no base, lone surrogates, and the blank fillers some
# scripts have (a private-use or not yet assigned character may show in some font: it counts)
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me", "Cs"}
_BLANK = set("\u115f\u1160\u3164\uffa0\u2800")


def invisible(text: str) -> bool:
    """True when no character of ``text`` shows anything (it reads as empty)."""
    return all(c in _BLANK or unicodedata.category(c) in _INVISIBLE_CATEGORIES for c in text)


def _bool_for_number(value: Any, annotation: Any) -> bool:
    """True when ``value`` holds a boolean where ``annotation`` wants a number (booleans are not
    numbers anywhere in the contract: ``{"rating": false}`` is a 422, not a 0)."""
    if annotation is bool or annotation is Any:
        return False
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _bool_for_number(value, args[0])
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return bool(options) and all(_bool_for_number(value, a) for a in options)
    if annotation in (int, float):
        return isinstance(value, bool)
    if origin in (list, set, frozenset) and isinstance(value, list) and args:
        return any(_bool_for_number(v, args[0]) for v in value)
    if origin is tuple and isinstance(value, list) and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return any(_bool_for_number(v, args[0]) for v in value)
        return any(_bool_for_number(v, a) for v, a in zip(value, args, strict=False))
    if origin is dict and isinstance(value, dict) and len(args) == 2:
        return any(_bool_for_number(v, args[1]) for v in value.values())
    return False


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


# Bounded words of every request (api.md "Limits"): an id, a name or label, a number of a score.
Id = Annotated[str, Field(max_length=64)]
Label = Annotated[str, Field(max_length=200)]
Score = Annotated[float, Field(ge=-1e12, le=1e12)]


class Strict(BaseModel):
    """Request bodies: unknown fields and non-finite numbers are refused (422), never stored; a
    boolean is not a number, and a text of invisible characters only is no text."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _plain_values(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name or "")
        if field is not None and _bool_for_number(value, field.annotation):
            raise ValueError("a boolean is not a number")
        if any(t and invisible(t) for t in _texts(value)):
            raise ValueError("must contain a visible character")
        return value


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


class GamePage(BaseModel):
    items: list[GameRead]
    next_cursor: str | None = None


# --- events ----------------------------------------------------------------------------------
# The settings document: checked by app/core/event_settings.py, whose rules generate its schema
# (app/core/settings_schema.py, added to the document's components by app/api/contract.py).
SettingsDocument = Annotated[
    dict[str, Any] | None,
    WithJsonSchema({"anyOf": [{"$ref": "#/components/schemas/EventSettings"}, {"type": "null"}]}),
]


class EventCreate(Strict):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "name": "Spring Clash",
                    "game": "battlebooks",
                    "preset": "battlebooks-clash",
                    "settings": {"capacity": 32},
                },
                {
                    "name": "Tuesday Swiss",
                    "game": "generic",
                    "settings": {"stages": [{"format": "swiss", "rounds": 4}], "tiebreaks": ["buchholz"]},
                },
            ]
        }
    )

    name: str = Field(min_length=1, max_length=200)
    game: str = Field(min_length=1, max_length=64)
    preset: str | None = Field(default=None, max_length=64)
    settings: SettingsDocument = Field(default=None, max_length=64)
    seed: str | None = Field(default=None, min_length=8, max_length=128)


class EventUpdate(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    settings: SettingsDocument = Field(default=None, max_length=64)


class EventWinner(BaseModel):
    entry_id: str
    name: str


class EventRead(BaseModel):
    id: str
    name: str
    game: str
    status: EventStatus
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
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"name": "Ada Lovelace", "external_id": "FIDE-1", "rating": 1850, "club": "Hackers"}]
        }
    )

    player_id: str | None = Field(default=None, max_length=64)
    name: str | None = Field(default=None, min_length=1, max_length=200)
    external_id: str | None = Field(
        default=None, min_length=1, max_length=200, description="a federation or club id; wins over the name"
    )
    rating: float | None = Field(default=None, ge=-10_000, le=10_000, description="starting rating")
    seed: int | None = Field(default=None, ge=1, le=100_000, description="seed number, 1 the top")
    club: str | None = Field(default=None, min_length=1, max_length=100, description="club or team")
    characters: list[Annotated[str, Field(max_length=100)]] = Field(default_factory=list, max_length=16)
    organizer: StrictBool = False  # "yes" or 1 is a 422, never a true (formats.md "Presets")

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
    status: EntryStatus
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


class EntryPage(BaseModel):
    items: list[EntryRead]
    next_cursor: str | None = None


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
    pairs: list[Annotated[list[Id], Field(max_length=64)]] = Field(max_length=10_000)


class HistoryEntryRead(BaseModel):
    action: str
    actor: str
    payload: dict[str, Any]
    at: datetime


class HistoryPage(BaseModel):
    items: list[HistoryEntryRead]
    next_cursor: str | None = None


class SwapIn(Strict):
    entries: list[Id] = Field(min_length=2, max_length=2)


# --- jobs ------------------------------------------------------------------------------------
class JobAccepted(BaseModel):
    job_id: str


class JobRead(BaseModel):
    id: str
    kind: JobKindName
    status: JobStatus
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
    entry_id: str = Field(max_length=64)
    place: int | None = Field(default=None, ge=1, le=64)
    score: float | None = Field(default=None, ge=-1e12, le=1e12)
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
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "outcome": "played",
                    "seats": [{"entry_id": "ENTRY-A", "place": 1}, {"entry_id": "ENTRY-B", "place": 2}],
                },
                {"outcome": "draw", "seats": [{"entry_id": "ENTRY-A"}, {"entry_id": "ENTRY-B"}]},
            ]
        }
    )

    outcome: Literal["played", "draw", "timeout", "forfeit", "void"] | None = None
    seats: list[ResultSeatIn] = Field(default_factory=list, max_length=64)
    game_log: dict[str, Any] | None = Field(default=None, max_length=64)


class RoundCreate(Strict):
    tables: list[Annotated[list[Id], Field(max_length=64)]] | None = Field(
        default=None,
        max_length=10_000,
        description="exactly these tables (manual pairing, heats, an external schedule)",
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
    outcome: Outcome
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
    status: MatchStatus
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


class RoundPage(BaseModel):
    items: list[RoundRead]
    next_cursor: str | None = None


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
    status: EntryStatus


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


class WebhookPage(BaseModel):
    items: list[WebhookRead]
    next_cursor: str | None = None


class WebhookCreated(WebhookRead):
    secret: str = Field(
        description="the signing secret (Standard Webhooks, `whsec_…`); shown only in this answer"
    )


class DeliveryRead(BaseModel):
    id: str
    webhook_id: str
    event_id: int = Field(description="the outbox id delivered (`webhook-id`): receivers de-duplicate by it")
    type: LiveEventType
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
