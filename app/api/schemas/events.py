"""Events, their presets and their entries (api.md "Events", "Entries")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    WithJsonSchema,
    model_validator,
)

from app.api.schemas.common import Id, Strict
from app.core import limits
from app.core.games.registry import PRESET_GAMES
from app.core.presets import PRESETS
from app.core.vocabulary import (
    EntryStatus,
    EventStatus,
)

# The settings document: checked by app/core/event_settings.py, whose rules generate its schema
# (app/core/settings_schema.py, added to the document's components by app/api/contract.py).
SettingsDocument = Annotated[
    dict[str, Any] | None,
    WithJsonSchema({"anyOf": [{"$ref": "#/components/schemas/EventSettings"}, {"type": "null"}]}),
]


_PRESET_GAMES: Any = [
    {"properties": {"preset": {"not": {"enum": sorted(PRESET_GAMES)}}}},
    *(
        {"properties": {"preset": {"const": name}, "game": {"enum": list(allowed)}}}
        for name, allowed in sorted(PRESET_GAMES.items())
    ),
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
            ],
            # a preset whose declaration names its games sets up events of those games only
            # (presets.game_problems, which words the refusal naming game)
            "anyOf": _PRESET_GAMES,
        }
    )

    name: str = Field(min_length=1, max_length=limits.NAME_LENGTH)
    game: str = Field(min_length=1, max_length=limits.KEY_LENGTH, description="a game of the catalog")
    # the names are the document's; the service refuses another one in its own words
    preset: str | None = Field(
        default=None, max_length=limits.KEY_LENGTH, json_schema_extra={"enum": [*sorted(PRESETS), None]}
    )
    settings: SettingsDocument = Field(default=None, max_length=64)
    seed: str | None = Field(default=None, min_length=limits.SEED_LENGTH[0], max_length=limits.SEED_LENGTH[1])
    season_id: Id | None = Field(
        default=None,
        description='a season to count the event in, attached as it is created (api.md "Seasons")',
    )


class EventUpdate(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=limits.NAME_LENGTH)
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
    season_id: str | None = Field(
        default=None, description="the season the event was attached to as it was created (null: none)"
    )


class EntryCreate(Strict):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "Ada Lovelace", "external_id": "FIDE-1", "rating": 1850, "club": "Hackers"}
            ],
            # exactly one of player_id or name (``_who``; a null one is not given)
            "oneOf": [
                {
                    "required": ["player_id"],
                    "properties": {"player_id": {"type": "string"}, "name": {"type": "null"}},
                },
                {
                    "required": ["name"],
                    "properties": {"name": {"type": "string"}, "player_id": {"type": "null"}},
                },
            ],
        }
    )

    player_id: str | None = Field(default=None, max_length=limits.ID_LENGTH)
    name: str | None = Field(default=None, min_length=1, max_length=limits.NAME_LENGTH)
    external_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=limits.EXTERNAL_ID_LENGTH,
        description="a federation or club id; wins over the name",
    )
    rating: float | None = Field(
        default=None, ge=-limits.ENTRY_RATING, le=limits.ENTRY_RATING, description="starting rating"
    )
    seed: int | None = Field(default=None, ge=1, le=limits.SEED_NUMBER, description="seed number, 1 the top")
    club: str | None = Field(
        default=None, min_length=1, max_length=limits.CLUB_LENGTH, description="club or team"
    )
    characters: list[Annotated[str, Field(max_length=limits.CHARACTER_LENGTH)]] = Field(
        default_factory=list,
        max_length=limits.CHARACTERS,
        description="each named once",
        json_schema_extra={"uniqueItems": True},
    )
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
    # a pair is two different entries (the service says so in its words: the schema's bounds are
    # the document's only); the parse bound stays FORBIDDEN_GROUP
    pairs: list[
        Annotated[
            list[Id],
            Field(
                max_length=limits.FORBIDDEN_GROUP,
                json_schema_extra={"minItems": 2, "maxItems": 2, "uniqueItems": True},
            ),
        ]
    ] = Field(max_length=limits.FORBIDDEN_PAIRS, json_schema_extra={"uniqueItems": True})


class HistoryEntryRead(BaseModel):
    action: str
    actor: str
    payload: dict[str, Any]
    at: datetime


class HistoryPage(BaseModel):
    items: list[HistoryEntryRead]
    next_cursor: str | None = None
