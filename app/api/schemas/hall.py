"""Announcements and the round clock (api.md "Announcements", "The round clock")."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.schemas.common import Id, Strict, StrictTypes


class AnnouncementCreate(Strict):
    text: str = Field(
        min_length=1, max_length=500, description="a short message: lunch break, round 3 at 14:00"
    )


class AnnouncementRead(BaseModel):
    id: str
    event_id: str
    text: str
    by: str = Field(description="who posted it, as the audit trail names it")
    created_at: datetime


class AnnouncementPage(BaseModel):
    items: list[AnnouncementRead]
    next_cursor: str | None = None


class ClockIn(StrictTypes):
    # extend takes its seconds (app/core/clock.py)
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"properties": {"action": {"not": {"const": "extend"}}}},
                {"required": ["seconds"], "properties": {"seconds": {"type": "integer"}}},
            ]
        }
    )

    action: Literal["start", "pause", "resume", "extend", "stop"]
    seconds: int | None = Field(
        default=None,
        ge=1,
        le=86_400,
        description="start: the round's time (default the event's game_minutes); extend: the seconds added",
    )
    match_id: Id | None = Field(default=None, description="extend: give this one table extra time")


class ClockRead(BaseModel):
    event_id: str
    state: Literal["idle", "running", "paused", "ended"]
    round: int | None
    duration_s: int = Field(description="the round's time, extensions included")
    ends_at: datetime | None = Field(description="running: when time is up (the server's clock)")
    remaining_s: float = Field(description="seconds left at server_time")
    server_time: datetime = Field(
        description="when this answer was made: count down from it, not from the client's clock"
    )
    tables: dict[str, datetime] = Field(
        default_factory=dict, description="tables given extra time: when each one's time is up, by match id"
    )
