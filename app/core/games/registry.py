"""Game adjudicators by name (the ``adjudicator`` of a game in the catalog): a match of such a game
may be reported as its game record (``game_log``) and the service fills the places from the
adjudicator's verdict (app/core/games/adjudication.py). A new adjudicated game is one module and
one row here."""

from __future__ import annotations

from collections.abc import Mapping

from app.core.errors import InvalidInput, Problem
from app.core.games import battlebooks_royal, rite_of_command, strategic_titan, titan_arena
from app.core.games.adjudication import Adjudication, Adjudicator, SeatOutcome

__all__ = ["ADJUDICATORS", "Adjudication", "Adjudicator", "SeatOutcome", "get_adjudicator"]

ADJUDICATORS: Mapping[str, Adjudicator] = {
    "titan-arena": titan_arena.adjudicate_match,
    "rite-of-command": rite_of_command.adjudicate_match,
    "strategic-titan": strategic_titan.adjudicate_match,
    "battlebooks-royal": battlebooks_royal.adjudicate_match,
}


def get_adjudicator(name: str) -> Adjudicator:
    adjudicator = ADJUDICATORS.get(name)
    if adjudicator is None:
        raise InvalidInput(
            f"no adjudicator named {name!r}", [Problem(("game_log",), f"game has no adjudicator {name!r}")]
        )
    return adjudicator
