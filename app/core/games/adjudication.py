"""What a game adjudicator answers (api.md ``POST /v1/matches/{id}/result`` — ``game_log``): the
outcome and every seat's place and score, judged from the game's record, with the full verdict kept
on the match. Each adjudicated game's module exposes ``adjudicate_match(game_log, seats, seed)`` and
declares its record's shape as a ``TypedDict`` (its keys, their types and bounds): the parser checks
a record's keys against that shape, and the OpenAPI document's ``game_log`` schema is generated from
it (app/api/contract.py), so the contract cannot drift from the record the parser reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


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


def match_seed(event_seed: str, match_id: str) -> str:
    """The seed an adjudicator draws a match's game from (a Rite of Command deal): the event's seed,
    a colon and the match's id. The event's seed is revealed once the event is finished, so every
    match's game can then be drawn again by anyone (rite-of-command.md "In a match")."""
    return f"{event_seed}:{match_id}"


def record_keys(shape: Any) -> frozenset[str]:
    """Every key a record's ``TypedDict`` declares: the keys its parser knows."""
    return frozenset(shape.__required_keys__ | shape.__optional_keys__)


class UniqueItems:
    """An annotation on a record shape's list whose items differ (``Annotated[list[...], UNIQUE]``):
    the generated schema says ``uniqueItems`` (through the schema generator's own hook, so that the
    core needs no schema library), while the parser words the refusal of a repeated item itself."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Callable[[Any], Any]) -> Any:
        schema = handler(core_schema)
        schema["uniqueItems"] = True
        return schema


UNIQUE = UniqueItems()

Adjudicator = Callable[[dict[str, Any], int, str], Adjudication]
