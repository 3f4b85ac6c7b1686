"""Players (api.md "Players")."""

from __future__ import annotations

from datetime import datetime

from pydantic import (
    BaseModel,
    Field,
)

from app.api.schemas.common import Strict
from app.core import limits


class PlayerCreate(Strict):
    name: str = Field(min_length=1, max_length=limits.NAME_LENGTH)
    external_id: str | None = Field(default=None, min_length=1, max_length=limits.EXTERNAL_ID_LENGTH)


class PlayerRead(BaseModel):
    id: str
    name: str
    external_id: str | None
    created_at: datetime


class PlayerPage(BaseModel):
    items: list[PlayerRead]
    next_cursor: str | None = None
