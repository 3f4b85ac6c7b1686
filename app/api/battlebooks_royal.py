"""BATTLEBOOKS Battle Royal's stateless record checker (api.md "Stateless tools"; battlebooks.md
"battlebooks-battle-royal").

No token, no state. The rules live in app/core/games/battlebooks_royal.py; a broken record is a 422
problem naming the rule (``rule``: e.g. ``battle-royal/token-order``), a malformed one names the field.
In an event, the same record is reported as the match's ``game_log`` and checked against the match's
first token holder. The record's schema is declared here (``VERDICT_ROUTE``); app/api/verdicts.py
makes the route.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from app.api.schemas import Strict
from app.api.verdicts import RoyalVerdict, VerdictRoute
from app.core.games import battlebooks_royal as br

SEAT = 1_000  # a seat number far past any table: the core names the seat that is not there
POINTS = 1e9
MAX_TURNS = 10_000


class RoyalTurn(Strict):
    attacker: int = Field(
        ge=-SEAT, le=SEAT, description="the token holder's seat (seats numbered clockwise from 0)"
    )
    target: int = Field(ge=-SEAT, le=SEAT, description="the living player attacked")
    attacker_body_points: float = Field(
        ge=-POINTS, le=POINTS, description="the attacker's body points after the exchange"
    )
    target_body_points: float = Field(
        ge=-POINTS, le=POINTS, description="the target's body points after the exchange (≤ 0: out)"
    )


class AdjudicateRoyal(Strict):
    players: int = Field(ge=2, le=br.ROYAL_MAX, description="seats at the table")
    first: int | None = Field(
        default=None, ge=-SEAT, le=SEAT, description="the seat holding the token first (default 0)"
    )
    body_points: list[Annotated[float, Field(ge=-POINTS, le=POINTS)]] = Field(
        max_length=64, description="every seat's starting body points, in seat order"
    )
    turns: list[RoyalTurn] = Field(max_length=MAX_TURNS)


VERDICT_ROUTE = VerdictRoute(
    "battlebooks-royal",
    body=AdjudicateRoyal,
    verdict=RoyalVerdict,
    tag="battlebooks",
    description="Replay a Battle Royal record: token order, eliminations and places (422 naming the broken rule).",
)
