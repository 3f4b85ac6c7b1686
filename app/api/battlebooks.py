"""BATTLEBOOKS score cards and heroes declared before a game (battlebooks.md "Common rules" — Score
cards; the card itself is built by app/core/games/battlebooks.py ``score_card``, its games gathered
by app/services/presets/battlebooks.py, which also declares heroes).

``POST /v1/matches/{id}/heroes``: a seat's hero declared on a pending match (its own entry token or
the organizer), checked by the hero rule; the match as it stands.

``GET /v1/events/{id}/entries/{entry_id}/scorecard``: every game of the entry in round order with the
opponent, both heroes, who holds the initiative token first, the game score (``5/+8``), the running
totals, each game's time limit and its sign-offs (the player's and the organizer's: who and when);
the round scores per game round (blocks of 3) and the Final Battle, whose totals are the Final
Score; the playoff's games apart (``playoff``, their own running totals). JSON by default; CSV with
``Accept: text/csv`` or ``?format=csv`` (one row per game, the playoff's last, labelled "Playoff";
the ``round_points``/``round_differential`` columns are filled on the game that closes a game
round).
Public, like standings: results are public data.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from pydantic import BaseModel, Field

from app.api.auth import require
from app.api.caching import cached
from app.api.csv_io import cached_csv, wants_csv
from app.api.deps import SessionDep
from app.api.matches import full_match_read
from app.api.schemas import MatchRead, StrictTypes
from app.core.access import Access, Principal
from app.core.games import battlebooks as bb
from app.core.vocabulary import EntryStatus, MatchStatus, Outcome
from app.services.presets.battlebooks import ScoreCardView, score_card, score_cards
from app.services.presets.battlebooks import declare_hero as declare
from app.services.results import match_view

router = APIRouter(tags=["battlebooks"])


class SignOffRead(BaseModel):
    by: str = Field(description="the player's name, or the organizer's role (organizer, admin)")
    at: datetime


class ScoreCardGame(BaseModel):
    round: int
    stage: int
    label: str
    game_round: int | None
    game: int | None
    final: bool
    table: int
    status: MatchStatus
    outcome: Outcome | None
    opponent_id: str | None
    opponent: str | None
    hero: str | None
    opponent_hero: str | None
    first_token: bool
    result: str | None
    points: float | None
    differential: float | None
    score: str | None
    total_points: float
    total_differential: float
    minutes: int | None
    player_sign_off: SignOffRead | None = Field(
        default=None, description="the player's claim of this very result: who and when"
    )
    organizer_sign_off: SignOffRead | None = Field(
        default=None,
        description="the organizer's record of the result (report, confirmation, ruling, correction)",
    )


class ScoreCardRound(BaseModel):
    game_round: int
    points: float
    differential: float
    score: str
    games: int
    complete: bool


class ScoreCardRead(BaseModel):
    event_id: str
    entry_id: str
    name: str
    preset: str | None
    status: EntryStatus
    books: list[str]
    games: list[ScoreCardGame]
    rounds: list[ScoreCardRound]
    final_battle: ScoreCardGame | None
    total_points: float
    total_differential: float
    final_score: str = Field(description="all the round scores plus the Final Battle, as points/differential")
    playoff: list[ScoreCardGame] = Field(
        default_factory=list,
        description="the playoff's games, apart from the Final Score, with running totals of their own",
    )


CSV_COLUMNS = (
    "round",
    "label",
    "game_round",
    "game",
    "table",
    "opponent",
    "hero",
    "opponent_hero",
    "first_token",
    "outcome",
    "result",
    "points",
    "differential",
    "score",
    "total_points",
    "total_differential",
    "round_points",
    "round_differential",
    "minutes",
    "player_signed_by",
    "player_signed_at",
    "organizer_signed_by",
    "organizer_signed_at",
)


def _game(row: bb.CardRow) -> ScoreCardGame:
    values = vars(row).copy()
    for key in ("player_sign_off", "organizer_sign_off"):
        sign = values[key]
        values[key] = None if sign is None else SignOffRead(by=sign.by, at=sign.at)
    return ScoreCardGame(**values)


def scorecard_read(view: ScoreCardView) -> ScoreCardRead:
    card = view.card
    return ScoreCardRead(
        event_id=view.event.id,
        entry_id=view.entry.id,
        name=view.entry.name,
        preset=view.event.preset,
        status=EntryStatus(view.entry.status),
        books=view.books,
        games=[_game(r) for r in card.rows],
        rounds=[
            ScoreCardRound(**vars(r), score=bb.score_text(r.points, r.differential) or "")
            for r in card.rounds
        ],
        final_battle=_game(card.final_battle) if card.final_battle else None,
        total_points=card.total_points,
        total_differential=card.total_differential,
        final_score=bb.score_text(card.total_points, card.total_differential) or "",
        playoff=[_game(r) for r in card.playoff],
    )


def _lines(card: ScoreCardRead) -> list[list[object]]:
    """A card's CSV lines, one per game (the values as they are: numbers stay numbers)."""
    closing = {}
    for r in card.rounds:
        last = max((g.round for g in card.games if g.game_round == r.game_round), default=None)
        if last is not None and r.complete:
            closing[last] = r
    lines = []
    for g in [*card.games, *card.playoff]:
        rs = closing.get(g.round)
        values = g.model_dump()
        values["round_points"] = rs.points if rs else None
        values["round_differential"] = rs.differential if rs else None
        for who in ("player", "organizer"):
            sign = values.pop(f"{who}_sign_off")
            values[f"{who}_signed_by"] = sign["by"] if sign else None
            values[f"{who}_signed_at"] = sign["at"].isoformat() if sign else None
        lines.append([values[c] for c in CSV_COLUMNS])
    return lines


class HeroDeclaration(StrictTypes):
    entry_id: str = Field(max_length=64, description="the seat whose hero this is")
    character: str = Field(min_length=1, max_length=100, description="one of the entry's books")


@router.post(
    "/v1/matches/{match_id}/heroes",
    operation_id="declare_hero",
    response_model=MatchRead,
    responses={422: {"description": "the hero breaks the hero rule (with `rule`)"}},
)
async def declare_hero(
    match_id: str,
    body: HeroDeclaration,
    session: SessionDep,
    who: Annotated[Principal, Depends(require(Access.ORGANIZER_OR_OWN_ENTRY, rows=True))],
    response: Response,
    if_match: Annotated[str | None, Header()] = None,
) -> MatchRead:
    """Declare a seat's hero before the game (the seat's own entry token, or the organizer), on a
    pending match of a BATTLEBOOKS Swiss event: checked by the hero rule now, shown on the pairing,
    and the hero of the result. `If-Match` is optional (412 when stale)."""
    match = await declare(session, match_id, who, body.entry_id, body.character, if_match)
    response.headers["ETag"] = f'"{match.version}"'
    return full_match_read(await match_view(session, match))


@router.get(
    "/v1/events/{event_id}/entries/{entry_id}/scorecard",
    operation_id="get_scorecard",
    response_model=ScoreCardRead,
    responses={200: {"content": {"text/csv": {}}}},
)
async def get_scorecard(
    request: Request,
    event_id: str,
    entry_id: str,
    session: SessionDep,
    format: Annotated[
        Literal["json", "csv"] | None, Query(description="csv, or send Accept: text/csv")
    ] = None,
) -> Response:
    """An entry's score card: every game's opponent, heroes, score/differential and running totals,
    with the round scores (JSON, or CSV with `Accept: text/csv` / `?format=csv`)."""
    card = scorecard_read(await score_card(session, event_id, entry_id))
    if format == "csv" or (format is None and wants_csv(request, "json")):  # an Accept that asks for it
        return cached_csv(request, CSV_COLUMNS, _lines(card), f"scorecard-{entry_id}.csv")
    return cached(request, card)


class ScoreCardsRead(BaseModel):
    event_id: str
    cards: list[ScoreCardRead]


@router.get(
    "/v1/events/{event_id}/scorecards",
    operation_id="get_scorecards",
    response_model=ScoreCardsRead,
    responses={200: {"content": {"text/csv": {}}}},
)
async def get_scorecards(
    request: Request,
    event_id: str,
    session: SessionDep,
    format: Annotated[
        Literal["json", "csv"], Query(description="json, or csv: one file for the event")
    ] = "json",
) -> Response:
    """Every entry's score card in one file: JSON, or CSV with each card's lines after its entry's
    id and name (`?format=csv`)."""
    cards = [scorecard_read(v) for v in await score_cards(session, event_id)]
    if wants_csv(request, format):
        lines = [(card.entry_id, card.name, *line) for card in cards for line in _lines(card)]
        return cached_csv(request, ("entry_id", "name", *CSV_COLUMNS), lines, f"scorecards-{event_id}.csv")
    return cached(request, ScoreCardsRead(event_id=event_id, cards=cards))
