"""Game adjudicators by name: a match of such a game may be reported as its game record
(``game_log``) and the service fills the places from the adjudicator's verdict.

Each game module exposes ``adjudicate_match(game_log, seats, seed) -> Adjudication``; they are
imported lazily so a game's module loads only when one of its matches is adjudicated.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.core.errors import InvalidInput, Problem


@dataclass(frozen=True)
class SeatOutcome:
    """The verdict for one seat of the match (``seat`` indexes the match's seats, from 0)."""

    seat: int
    place: int | None
    score: float | None = None


@dataclass(frozen=True)
class Adjudication:
    outcome: str  # "played" or "draw"
    seats: list[SeatOutcome]
    details: dict[str, Any] = field(default_factory=dict)  # the full verdict, stored with the match


Adjudicator = Callable[[dict[str, Any], int, str], Adjudication]

ADJUDICATORS: dict[str, str] = {
    "titan-arena": "app.core.games.titan_arena",
    "rite-of-command": "app.core.games.rite_of_command",
    "strategic-titan": "app.core.games.strategic_titan",
    "battlebooks-royal": "app.core.games.battlebooks_royal",
}


def get_adjudicator(name: str) -> Adjudicator:
    module_name = ADJUDICATORS.get(name)
    if module_name is None:
        raise InvalidInput(
            f"no adjudicator named {name!r}", [Problem(("game_log",), f"game has no adjudicator {name!r}")]
        )
    module = importlib.import_module(module_name)
    fn: Adjudicator = module.adjudicate_match
    return fn
