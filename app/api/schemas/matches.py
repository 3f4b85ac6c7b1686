"""A match, its seats and its result (api.md "Matches and results")."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from app.api.schemas.common import Strict, StrictTypes
from app.api.verdicts import MatchVerdict
from app.core.games.battlebooks import BODY_POINTS_LIMIT
from app.core.vocabulary import (
    MatchStatus,
    Outcome,
)


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
