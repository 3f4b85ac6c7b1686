"""An event's staff (api.md "Staff")."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from app.api.schemas.common import Strict
from app.core.vocabulary import StaffRole


class StaffCreate(Strict):
    name: str = Field(min_length=1, max_length=200, description="how the audit trail names the member")
    role: StaffRole = Field(
        description="scorekeeper: enters, confirms and corrects results and rules disputes; "
        "judge: that, and drops entries and swaps seats"
    )


class StaffRead(BaseModel):
    id: str
    event_id: str
    name: str
    role: StaffRole
    actor: str = Field(description="how the audit histories name the member: `staff:<id>`")
    revoked: bool
    created_at: datetime
    revoked_at: datetime | None = None


class StaffCreated(StaffRead):
    token: str = Field(description="the member's token: shown once, only its hash is kept")


class StaffPage(BaseModel):
    items: list[StaffRead]
    next_cursor: str | None = None
