"""The verdicts of adjudicated games as clients read them: the stateless tools' answers
(``POST /v1/adjudicate/…``) and a match's ``verdict`` (``GET /v1/matches/{id}``), one shape per
adjudicator (titan-arena.md "The in-game tie-break"; rite-of-command.md; battlebooks.md
"battlebooks-battle-royal"; strategic-titan.md). A match's verdict is routed to its member by what
each game declares (app/core/games/registry.py).

The stateless tools' routes are made here, one per game that declares a ``tool``
(``tool_router``): ``POST /v1/adjudicate/{game}``, operation ``adjudicate_{member}``, no token unless
the game's ``VerdictRoute`` names a permission; the body is the game's own request schema (declared
with its ``VerdictRoute`` in the game's router), handed to the tool off the event loop as the client
sent it (``None`` left out), and the tool's verdict answered in the game's verdict shape."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from app.api.auth import require
from app.core.access import Access, Principal
from app.core.games.registry import GAMES, Game, stored_verdict_keys, verdict_members
from app.services.offload import off_loop


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


# --- the stateless tools' routes ---------------------------------------------------------------
@dataclass(frozen=True)
class VerdictRoute:
    """What the HTTP route of a game's stateless tool needs beyond the game's declaration: the
    request schema (``body``) and the answer's (``verdict``), the document's tag and text
    (``summary`` only where the published one is not "Adjudicate <Game>"), whether fields the tool
    left out stay out (``exclude_unset``), and who may call it (``access``; None: anyone, no
    token)."""

    game: str
    body: type[BaseModel]
    verdict: type[BaseModel]
    tag: str
    description: str
    summary: str | None = None
    exclude_unset: bool = False
    access: Access | None = None


def _endpoint(game: Game, route: VerdictRoute) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The route's function: parse ``route.body``, state ``route.access``, run the game's tool."""
    tool = game.tool
    if tool is None:
        raise ImportError(f"game {game.name!r} has no tool to route")

    async def adjudicate(body: BaseModel, **_: Any) -> dict[str, Any]:
        return await off_loop(tool, body.model_dump(exclude_none=True))

    params = [inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, annotation=route.body)]
    if route.access is not None:
        who = Annotated[Principal, Depends(require(route.access))]
        params.append(inspect.Parameter("who", inspect.Parameter.KEYWORD_ONLY, annotation=who))
    adjudicate.__signature__ = inspect.Signature(params, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    adjudicate.__name__ = adjudicate.__qualname__ = f"adjudicate_{game.verdict_member}"
    return adjudicate


def tool_router(routes: Iterable[VerdictRoute]) -> APIRouter:
    """The route of every game's stateless tool (``GAMES``: the games with a ``tool``), each with
    its game's ``VerdictRoute``; a game without one, a route for a game with no tool, or a game
    routed twice fails here, as the routers are imported."""
    by_game: dict[str, VerdictRoute] = {}
    for route in routes:
        if route.game in by_game:
            raise ImportError(f"the verdict route of game {route.game!r} is declared twice")
        by_game[route.game] = route
    tools = [g for g in GAMES if g.tool is not None]
    if set(by_game) != {g.name for g in tools}:
        raise ImportError(
            f"the verdict routes {sorted(by_game)} are not the games with a tool {sorted(g.name for g in tools)}"
        )
    router = APIRouter()
    for game in tools:
        route = by_game[game.name]
        endpoint = _endpoint(game, route)
        router.add_api_route(
            f"/v1/adjudicate/{game.name}",
            endpoint,
            methods=["POST"],
            name=endpoint.__name__,
            operation_id=endpoint.__name__,
            response_model=route.verdict,
            response_model_exclude_unset=route.exclude_unset,
            tags=[route.tag],
            summary=route.summary,
            description=route.description,
        )
    return router
