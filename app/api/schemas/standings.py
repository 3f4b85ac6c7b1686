"""Standings and the cross-table (api.md "Standings", "Exports")."""

from __future__ import annotations

from pydantic import (
    BaseModel,
    Field,
)

from app.core.vocabulary import (
    EntryStatus,
)


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
