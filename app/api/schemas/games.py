"""The game catalog (api.md "Games")."""

from __future__ import annotations

from pydantic import (
    BaseModel,
    Field,
    model_validator,
)

from app.api.schemas.common import Strict


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
