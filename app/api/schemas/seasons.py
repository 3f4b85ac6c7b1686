"""A league's seasons (api.md "Seasons")."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from app.api.schemas.common import Id, Strict, StrictTypes


class SeasonCreate(StrictTypes):
    name: str = Field(min_length=1, max_length=200)
    points: list[float] = Field(
        min_length=1, max_length=256, description="points by place: [25, 18, 15, …]; never rising"
    )
    best_of: int | None = Field(default=None, ge=1, le=1000, description="count each player's N best results")


class SeasonEventIn(Strict):
    event_id: Id


class SeasonEventRead(BaseModel):
    event_id: str
    name: str
    status: str
    counted: bool = Field(description="finished: its final places count")


class SeasonRead(BaseModel):
    id: str
    name: str
    points: list[float]
    best_of: int | None
    events: list[SeasonEventRead]
    created_at: datetime


class SeasonListed(BaseModel):
    id: str
    name: str
    events: int = Field(description="how many events are attached (finished or not)")
    created_at: datetime


class SeasonPage(BaseModel):
    items: list[SeasonListed]
    next_cursor: str | None = None


class SeasonCreated(SeasonRead):
    organizer_token: str = Field(description="the season organizer's token: shown once")


class SeasonResultRead(BaseModel):
    event_id: str
    place: int
    points: float
    counted: bool = Field(description="false: outside the player's best_of results")


class SeasonRowRead(BaseModel):
    rank: int
    player_id: str
    name: str
    points: float
    events: int
    results: list[SeasonResultRead]
    decided_by: str | None = Field(description="points, countback, or null for a shared rank")


class SeasonStandingsRead(BaseModel):
    season_id: str
    events: list[str] = Field(description="the finished events counted")
    items: list[SeasonRowRead]
