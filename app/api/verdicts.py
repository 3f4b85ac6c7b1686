"""The verdicts of adjudicated games as clients read them: the stateless tools' answers
(``POST /v1/adjudicate/…``) and a match's ``verdict`` (``GET /v1/matches/{id}``), one shape per
adjudicator (titan-arena.md "The in-game tie-break"; rite-of-command.md; battlebooks.md
"battlebooks-battle-royal"; strategic-titan.md). A match's verdict is routed to its member by what
each game declares (app/core/games/registry.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.core.games.registry import stored_verdict_keys, verdict_members


# --- Titan: The Arena --------------------------------------------------------------------------
class PlaceOut(BaseModel):
    player: str
    place: int
    score: float


class TieBreakOut(BaseModel):
    players: list[str] = Field(description="the players tied on score")
    order: list[str] = Field(description="[above, below]: the pair this record splits")
    score: float
    rule: str = Field(description="bets, last_play or dice")
    decided_by: str = Field(description="the creature whose bets split them, 'last_play' or 'dice'")
    values: dict[str, float]


class StatisticsOut(BaseModel):
    kills: dict[str, int]
    bets: dict[str, dict[str, float]]


class TitanVerdict(BaseModel):
    variant: str
    tie_rule: str
    places: list[PlaceOut]
    tiebreaks: list[TieBreakOut]
    statistics: StatisticsOut
    deaths: list[str]


# --- Rite of Command ---------------------------------------------------------------------------
class ArmedOut(BaseModel):
    soldier: str
    owner: int
    weapons: list[str]
    position: int


class FightOut(BaseModel):
    p1: str
    p2: str
    p1_power: int
    p2_power: int
    winner: int
    p1_position: int
    p2_position: int


class RingOut(BaseModel):
    ring: int
    armed: list[ArmedOut]
    fights: list[FightOut]
    winner: int | None


class WagersOut(BaseModel):
    stakes: dict[str, int | float | str]
    goes_to: dict[str, int]
    payouts: dict[str, int | float] | None


class RiteVerdict(BaseModel):
    rings: list[RingOut]
    winner: int | None
    rings_won: dict[str, int]
    wagers: WagersOut | None = None


# --- BATTLEBOOKS Battle Royal ------------------------------------------------------------------
class Elimination(BaseModel):
    turn: int = Field(description="0-based index of the turn that eliminated the seat")
    seat: int


class RoyalVerdict(BaseModel):
    first: int
    holders: list[int] = Field(description="the token holder of every turn")
    eliminations: list[Elimination] = Field(description="in order of elimination")
    body_points: list[float] = Field(description="every seat's body points after the last turn")
    places: list[int] = Field(description="per seat: the reverse order of elimination (1 = last standing)")


# --- a match's verdict -------------------------------------------------------------------------
class MatchVerdict(BaseModel):
    """What decided an adjudicated match, as its adjudicator judged the game log: the member named
    after ``adjudicator`` holds it."""

    adjudicator: str | None = Field(
        description="titan-arena, rite-of-command, battlebooks-royal or strategic-titan"
    )
    titan_arena: TitanVerdict | None = Field(
        default=None, description="places, and the creature (bets), last play or dice that broke each tie"
    )
    rite_of_command: RiteVerdict | None = Field(
        default=None, description="each ring's arming and fights, the winner and the wagers"
    )
    battlebooks_royal: RoyalVerdict | None = Field(
        default=None, description="the token holder of every turn and the eliminations"
    )
    strategic_titan: dict[str, Any] | None = Field(
        default=None, description="the replayed record: its final state and any violation"
    )


# Each adjudicated game's member above and the key its old stored verdicts are known by, as the
# game declares them (app/core/games/registry.py: GAMES); a game without its member fails here.
_MEMBERS = verdict_members()
_SHAPES, _REST = stored_verdict_keys()
if set(_MEMBERS.values()) != set(MatchVerdict.model_fields) - {"adjudicator"}:
    raise ImportError(f"MatchVerdict's members are not the adjudicated games' {sorted(_MEMBERS.values())}")


def match_verdict(details: dict[str, Any] | None) -> MatchVerdict | None:
    """A match's stored verdict (``Match.details``) as its typed read; None when none was judged."""
    verdict = (details or {}).get("adjudication")
    if not isinstance(verdict, dict):
        return None
    name = (details or {}).get("adjudicator")
    if name not in _MEMBERS:
        name = next((n for key, n in _SHAPES.items() if key in verdict), _REST)
    return MatchVerdict.model_validate({"adjudicator": name, _MEMBERS[name]: verdict})
