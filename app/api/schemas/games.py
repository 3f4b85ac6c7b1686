"""The game catalog (api.md "Games")."""

from __future__ import annotations

from pydantic import (
    BaseModel,
    Field,
    model_validator,
)

from app.api.schemas.common import Strict
from app.core import limits


class GameCreate(Strict):
    key: str = Field(min_length=1, max_length=limits.KEY_LENGTH, pattern=limits.GAME_KEY_PATTERN)
    name: str = Field(min_length=1, max_length=limits.NAME_LENGTH)
    min_seats: int = Field(ge=1, le=limits.SEATS)
    max_seats: int = Field(ge=1, le=limits.SEATS)
    adjudicator: str | None = Field(default=None, max_length=limits.KEY_LENGTH)

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
