"""Rounds and the lifecycle answers (api.md "Start, rounds and advance")."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    Field,
)

from app.api.schemas.common import Id, Strict
from app.api.schemas.events import EventRead
from app.api.schemas.matches import MatchRead


class SwapIn(Strict):
    entries: list[Id] = Field(min_length=2, max_length=2)


class RoundCreate(Strict):
    tables: list[Annotated[list[Id], Field(max_length=64)]] | None = Field(
        default=None,
        max_length=10_000,
        description="exactly these tables (manual pairing, heats, an external schedule)",
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


class LifecycleRead(BaseModel):
    event: EventRead
    stage: int | None = None
    round: RoundRead | None = None
    job_id: str | None = None
    note: str | None = Field(
        default=None, description="what the organizer must do before the stage can go on"
    )
