"""Game adjudicators by name (the ``adjudicator`` of a game in the catalog): a match of such a game
may be reported as its game record (``game_log``) and the service fills the places from the
adjudicator's verdict (app/core/games/adjudication.py). A new adjudicated game is one module and
one row here (and its record's shape in ``RECORD_SHAPES``: the OpenAPI document's ``game_log``
schema); a game whose record names its players (Titan: The Arena) also has a row in
``SEAT_ORDER``, which puts the record's players in the match's seat order first."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.games import battlebooks_royal, rite_of_command, strategic_titan, titan_arena
from app.core.games.adjudication import Adjudication, Adjudicator, SeatOutcome

__all__ = [
    "ADJUDICATORS",
    "RECORD_SHAPES",
    "SEAT_ORDER",
    "Adjudication",
    "Adjudicator",
    "SeatOutcome",
    "adjudicator_name",
    "get_adjudicator",
    "in_seat_order",
]

ADJUDICATORS: Mapping[str, Adjudicator] = {
    "titan-arena": titan_arena.adjudicate_match,
    "rite-of-command": rite_of_command.adjudicate_match,
    "strategic-titan": strategic_titan.adjudicate_match,
    "battlebooks-royal": battlebooks_royal.adjudicate_match,
}


# Each adjudicator's record as its parser declares it (a TypedDict).
RECORD_SHAPES: Mapping[str, Any] = {
    "titan-arena": titan_arena.TitanArenaLog,
    "rite-of-command": rite_of_command.RiteOfCommandLog,
    "strategic-titan": strategic_titan.record_shape(),
    "battlebooks-royal": battlebooks_royal.BattleRoyalLog,
}


def get_adjudicator(name: str) -> Adjudicator:
    adjudicator = ADJUDICATORS.get(name)
    if adjudicator is None:
        raise InvalidInput(
            f"no adjudicator named {name!r}", [Problem(("game_log",), f"game has no adjudicator {name!r}")]
        )
    return adjudicator


SEAT_ORDER: Mapping[str, Callable[[Any, Sequence[tuple[str, str]]], Any]] = {
    "titan-arena": titan_arena.in_seat_order,
}


def in_seat_order(name: str | None, game_log: Any, seats: Sequence[tuple[str, str]]) -> Any:
    """The record with its players in the match's seat order (``seats``: (entry id, name), seat 0
    first), for the adjudicators whose records name their players; other records as they are."""
    order = SEAT_ORDER.get(name or "")
    return order(game_log, seats) if order is not None else game_log


def adjudicator_name(adjudicator: Adjudicator) -> str | None:
    """The registry's name of an adjudicator (a preset may hand in one with arguments bound)."""
    fn = adjudicator.func if isinstance(adjudicator, partial) else adjudicator
    return next((name for name, known in ADJUDICATORS.items() if known is fn), None)
