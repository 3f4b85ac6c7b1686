"""Titan: The Arena over HTTP (api.md "Stateless tools"; titan-arena.md).

- ``POST /v1/adjudicate/titan-arena``: places from a game log, every tie broken (WBC rule on bets,
  then last play, then a seeded die), with what broke each tie. No token, no state. Its body is
  declared here (``VERDICT_ROUTE``); app/api/verdicts.py makes the route.
- ``GET /v1/events/{id}/places``: every place of a ``wbc-hmwp`` event (final table, then the other
  semifinalists by semifinal place, then seeding); ``complete`` once the event is finished; with
  its ETag, and as CSV (``?format=csv``), one place a line.
- ``GET /v1/events/{id}/titan-arena/statistics``: kills credited per entry and bets per creature
  over the event's confirmed game logs.
- ``GET /v1/events/{id}/titan-arena/semifinal``: the semifinal's make-up — seeding, winners,
  alternates, the target size before shrinking, the tables — as recorded when the heats closed.
- ``GET|POST /v1/events/{id}/titan-arena/final-rules``: the finalists' opt-in to the Colossal Arena
  rules (``{entry_id?, colossal}`` — an entry token answers for itself, the organizer for any
  finalist), the resulting ``version`` (``colossal-arena`` only when every finalist said yes) and
  then the eight ``creatures`` drawn for the final.

Every rule lives in app/core/games/titan_arena.py and app/services/presets/titan_arena.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from app.api import schemas
from app.api.auth import EventMember
from app.api.caching import cached
from app.api.csv_io import CSV_CONTENT, FormatQuery, csv_table_answer, wants_csv
from app.api.deps import SessionDep
from app.api.verdicts import TitanVerdict, VerdictRoute
from app.core import limits
from app.core.games.titan_arena import MAX_PLAYERS, MIN_PLAYERS, TIE_RULES, VARIANTS
from app.services.presets import titan_arena as svc

router = APIRouter(tags=["titan-arena"])


class Strict(schemas.Strict):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=True)


Label = schemas.Label


class DeathIn(Strict):
    creature: str = Field(max_length=200)
    killed_by: str | None = Field(
        default=None, max_length=200, description="the player credited with the kill"
    )


class BetIn(Strict):
    player: str = Field(max_length=200)
    creature: str = Field(max_length=200)
    points: float = Field(ge=-1e12, le=1e12)
    secret: bool = False


class AdjudicateTitan(Strict):
    variant: str | None = Field(
        default=None,
        max_length=64,
        description="titan-the-arena (default) or colossal-arena",
        json_schema_extra={"enum": [*VARIANTS, None]},
    )
    # 3–5 distinct names that show a character (the log's reader words the refusal; the parse
    # bound stays 16)
    players: list[
        Annotated[str, Field(max_length=limits.NAME_LENGTH, json_schema_extra={"pattern": r"\S"})]
    ] = Field(
        max_length=16,
        description="3–5 distinct player names (in a match: the seats, in seat order)",
        json_schema_extra={"minItems": MIN_PLAYERS, "maxItems": MAX_PLAYERS, "uniqueItems": True},
    )
    scores: dict[Label, schemas.Score] | list[schemas.Score] = Field(
        max_length=16, description="{player: score}, or a list in players order"
    )
    deaths: list[DeathIn] = Field(
        default_factory=list, max_length=200, description="in the order the creatures died"
    )
    bets: list[BetIn] = Field(default_factory=list, max_length=200)
    last_play: str | None = Field(
        default=None, max_length=200, description="the player who made the last play"
    )
    tie_rule: str | None = Field(
        default=None,
        max_length=64,
        description="wbc (default) or last_play",
        json_schema_extra={"enum": [*TIE_RULES, None]},
    )
    creatures: list[Label] | None = Field(
        default=None, max_length=200, description="the creatures in the game (optional)"
    )
    seed: str | None = Field(default=None, max_length=200, description="for the dice; default fixed")


VERDICT_ROUTE = VerdictRoute(
    "titan-arena",
    body=AdjudicateTitan,
    verdict=TitanVerdict,
    tag="titan-arena",
    description="Places from a game log; ties by bets on the last creature to die, and back (WBC rule).",
)


class PlaceRow(BaseModel):
    place: int
    entry_id: str
    name: str
    decided_by: str = Field(description="final, semifinal or seeding")


class PlacesRead(BaseModel):
    complete: bool
    rows: list[PlaceRow]


class KillsRow(BaseModel):
    entry_id: str
    name: str
    kills: int


class EventStatistics(BaseModel):
    games: int
    kills: list[KillsRow]
    bets: dict[str, dict[str, float]]
    deaths: dict[str, int]


class FinalRulesIn(Strict):
    entry_id: str | None = Field(
        default=None, max_length=64, description="required for the organizer; an entry answers for itself"
    )
    colossal: bool = Field(description="true: this finalist opts in to the Colossal Arena rules")


class FinalRulesRead(BaseModel):
    finalists: list[str]
    choices: dict[str, bool]
    version: str = Field(description="titan-the-arena (original) or colossal-arena")
    creatures: list[str] | None = Field(
        default=None,
        description="under the Colossal Arena rules: the eight creatures drawn (event seed) from the "
        "game's twelve for the final; its log may name no other",
    )
    open: bool


class SeedRow(BaseModel):
    seed: int
    entry_id: str
    name: str
    role: str | None = Field(description="winner (a heat won), alternate (a second place, seated), or null")


class SemifinalRead(BaseModel):
    recorded: bool = Field(description="true once the heats closed: the make-up as it was recorded then")
    stale: bool = Field(description="a correction since the heats closed would change the make-up now")
    seeding: list[SeedRow] = Field(description="everyone who played a heat, in seeding order")
    winners: list[str] = Field(description="heat winners seated, by seeding")
    alternates: list[str] = Field(description="entries with a second place but no win seated, by seeding")
    seats: list[str] = Field(description="the semifinal's seats in seed order: winners, then alternates")
    target_size: int = Field(description="16, 20 or 25: the size chosen before too few qualified")
    size: int
    tables: int
    straight_to_final: bool = Field(description="too few for two tables: the seats play the final directly")


@router.get(
    "/v1/events/{event_id}/places",
    operation_id="get_places",
    response_model=PlacesRead,
    responses=CSV_CONTENT,
)
async def get_places(
    request: Request, event_id: str, session: SessionDep, format: FormatQuery = "json"
) -> Response:
    """Every place of a wbc-hmwp event, from what has been played so far (`?format=csv`: one place
    a line)."""
    places = PlacesRead.model_validate(await svc.places(session, event_id))
    if wants_csv(request, format):
        return csv_table_answer(request, PlaceRow, places.rows, f"places-{event_id}.csv")
    return cached(request, places)


@router.get(
    "/v1/events/{event_id}/titan-arena/statistics",
    operation_id="get_titan_arena_statistics",
    response_model=EventStatistics,
)
async def get_statistics(event_id: str, session: SessionDep) -> dict[str, Any]:
    """Kills credited per entry and bets per creature, from the event's confirmed game logs."""
    return await svc.statistics(session, event_id)


@router.get(
    "/v1/events/{event_id}/titan-arena/semifinal",
    operation_id="get_titan_arena_semifinal",
    response_model=SemifinalRead,
)
async def get_semifinal(event_id: str, session: SessionDep) -> dict[str, Any]:
    """The semifinal's make-up: seeding, winners, alternates, the target size and its tables."""
    return await svc.semifinal(session, event_id)


@router.get(
    "/v1/events/{event_id}/titan-arena/final-rules",
    operation_id="get_final_rules",
    response_model=FinalRulesRead,
)
async def get_final_rules(event_id: str, session: SessionDep) -> dict[str, Any]:
    """The finalists' answers and the final's rules version."""
    return await svc.final_rules(session, event_id)


@router.post(
    "/v1/events/{event_id}/titan-arena/final-rules",
    operation_id="choose_final_rules",
    response_model=FinalRulesRead,
)
async def choose_final_rules(
    event_id: str, body: FinalRulesIn, session: SessionDep, who: EventMember
) -> dict[str, Any]:
    """A finalist opts in (or out) of the Colossal Arena rules for the final."""
    return await svc.choose_final_rules(session, event_id, who, body.entry_id, body.colossal)
