"""BATTLEBOOKS Battle Royal's stateless record checker (api.md "Stateless tools"; battlebooks.md
"battlebooks-battle-royal").

No token, no state. The rules live in app/core/games/battlebooks_royal.py; a broken record is a 422
problem naming the rule (``rule``: e.g. ``battle-royal/token-order``), a malformed one names the field.
In an event, the same record is reported as the match's ``game_log`` and checked against the match's
first token holder. The record's schema is declared here (``VERDICT_ROUTE``); app/api/verdicts.py
makes the route.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from app.api.schemas import Strict
from app.api.verdicts import RoyalVerdict, VerdictRoute
from app.core.games import battlebooks_royal as br
from app.core.games.battlebooks import BODY_POINTS_LIMIT

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


def _table(seats: int) -> dict[str, Any]:
    """The record of a table of ``seats`` as ``br.parse_record`` checks it: a seat number names a
    seat of the table, every seat has starting body points (above 0), at least one turn."""
    seat = {"minimum": 0, "maximum": seats - 1}
    points = {"minimum": -BODY_POINTS_LIMIT, "maximum": BODY_POINTS_LIMIT}
    return {
        "properties": {
            "players": {"const": seats},
            "first": seat,
            "body_points": {
                "minItems": seats,
                "maxItems": seats,
                "items": {"exclusiveMinimum": 0, "maximum": BODY_POINTS_LIMIT},
            },
            "turns": {
                "minItems": 1,
                "items": {
                    "properties": {
                        "attacker": seat,
                        "target": seat,
                        "attacker_body_points": points,
                        "target_body_points": points,
                    }
                },
            },
        }
    }


class AdjudicateRoyal(Strict):
    # one shape per table size (the core words the refusals; the fields' own bounds parse)
    model_config = ConfigDict(json_schema_extra={"oneOf": [_table(n) for n in range(2, br.ROYAL_MAX + 1)]})

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
