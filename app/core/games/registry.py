"""Every game the product knows more of than its catalog row, each declared once (``GAMES``): the
presets its source documents define (formats.md "Presets"), and for an adjudicated game (the
``adjudicator`` of a game in the catalog) the function that judges its record, the record's shape,
how the record is put in seat order, how a verdict stored before its adjudicator's name was kept
with it is recognized, and its stateless tool (a whole record as a client sends it, judged on its
own: ``POST /v1/adjudicate/{name}``). A match of an adjudicated game may be reported as its game record
(``game_log``) and the service fills the places from the adjudicator's verdict
(app/core/games/adjudication.py).

Everything else is built from ``GAMES``: ``ADJUDICATORS``, ``RECORD_SHAPES`` (the OpenAPI document's
``game_log`` schema), ``SEAT_ORDER``, ``PRESETS`` (collected by ``app/core/presets.py``),
``PRESET_GAMES`` (the catalog's games a preset sets up events of), ``PRESET_OFFERED`` (the
settings a preset leaves unset that its new event form offers), ``FIRST_SEATS`` (who plays first
at a match, where the game's own rules draw it from the match's seed), and the
verdict members and stored keys ``app/api/verdicts.py`` routes a match's verdict by, and the verdict
routes ``app/api/verdicts.py`` ``tool_router`` makes, one per game with a ``tool``. A declaration
that is incomplete, or that repeats another's name or preset, fails as this module is imported."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.games import battlebooks, battlebooks_royal, bga, rite_of_command, strategic_titan, titan_arena
from app.core.games.adjudication import Adjudication, Adjudicator, SeatOutcome

__all__ = [
    "ADJUDICATORS",
    "FIRST_SEATS",
    "GAMES",
    "PRESETS",
    "PRESET_GAMES",
    "PRESET_OFFERED",
    "RECORD_SHAPES",
    "SEAT_ORDER",
    "Adjudication",
    "Adjudicator",
    "Game",
    "SeatOutcome",
    "adjudicator_name",
    "get_adjudicator",
    "in_seat_order",
    "stored_verdict_keys",
    "verdict_members",
]

SeatOrder = Callable[[Any, Sequence[tuple[str, str]]], Any]
OFFERED_KINDS = ("int", "datetime")
Tool = Callable[[dict[str, Any]], dict[str, Any]]
"""A stateless tool: the record as its client sent it (checked for shape) → the verdict's document."""
FirstSeat = Callable[[str, int], int | None]
"""The match's seed and its number of seats → the seat that plays first (``None``: the round's draw)."""


@dataclass(frozen=True)
class Game:
    """One game's declaration.

    ``name``: the adjudicator's name in the catalog (``games.adjudicator``) for an adjudicated game,
    else the game module's own name. ``presets``: its source documents' events, by preset name.
    ``events_of``: the catalog's games (``games.key``) its presets set up events of; empty when they
    suit any game (Board Game Arena's round robins play whatever game the platform hosts).
    ``adjudicator`` and ``record_shape`` (a ``TypedDict`` whose keys its parser checks) come
    together; ``seat_order`` when the record names its players (it puts them in the match's seat
    order first); ``stored_key``: a key found only in this game's verdicts, by which one stored
    before the adjudicator's name was kept with it is known (None for the one adjudicated game whose
    verdicts are what is left); ``tool``: the stateless tool an adjudicated game offers, judging a
    record outside any event. ``offered``: per preset, the settings its document leaves unset that
    the new event form offers blank, each with its kind (``int``, ``datetime``): a blank keeps the
    engine's default. ``first_seat``: for an adjudicated game whose own rules draw who plays first
    from the match's seed (a Rite of Command deal), that seat, which the round marks as holding the
    first token, so that every page's ★ is the game's first player."""

    name: str
    presets: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    offered: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    events_of: tuple[str, ...] = ()
    adjudicator: Adjudicator | None = None
    record_shape: Any = None
    seat_order: SeatOrder | None = None
    stored_key: str | None = None
    tool: Tool | None = None
    first_seat: FirstSeat | None = None

    def __post_init__(self) -> None:
        if len({self.adjudicator is None, self.record_shape is None, self.tool is None}) != 1:
            raise TypeError(
                f"game {self.name!r}: an adjudicator, its record's shape and its tool come together"
            )
        if self.adjudicator is None and (self.seat_order is not None or self.stored_key is not None):
            raise TypeError(f"game {self.name!r}: seat order and stored verdicts need an adjudicator")
        if self.adjudicator is None and not self.presets:
            raise TypeError(f"game {self.name!r} declares nothing: neither presets nor an adjudicator")
        if self.events_of and not self.presets:
            raise TypeError(f"game {self.name!r}: events_of names the games of presets it has none of")
        if set(self.offered) - set(self.presets):
            raise TypeError(f"game {self.name!r}: offered names presets it has none of")
        if any(kind not in OFFERED_KINDS for knobs in self.offered.values() for kind in knobs.values()):
            raise TypeError(f"game {self.name!r}: an offered setting's kind is one of {OFFERED_KINDS}")
        if self.first_seat is not None and self.adjudicator is None:
            raise TypeError(
                f"game {self.name!r}: a first seat drawn from the match's seed needs an adjudicator"
            )

    @property
    def verdict_member(self) -> str:
        """The member of a match's verdict (``MatchVerdict``) that holds this game's."""
        return self.name.replace("-", "_")


# --- the stateless tools: each game's record as a client sends it, judged on its own -------------
def _titan_arena_tool(record: dict[str, Any]) -> dict[str, Any]:
    return titan_arena.adjudicate_log(record).as_dict()


def _rite_of_command_tool(record: dict[str, Any]) -> dict[str, Any]:
    return rite_of_command.adjudicate_log(record).as_dict()


def _battlebooks_royal_tool(record: dict[str, Any]) -> dict[str, Any]:
    """The record and the table's size apart, as an event's match hands them in."""
    log = {key: value for key, value in record.items() if key != "players"}
    return battlebooks_royal.adjudicate_match(log, record["players"], "").details


def _strategic_titan_tool(record: dict[str, Any]) -> dict[str, Any]:
    """A broken rule is a verdict (``valid: false``), not an error."""
    return strategic_titan.replay(record["players"], record.get("options"), record["events"]).to_dict()


GAMES: tuple[Game, ...] = (
    Game(
        "titan-arena",
        presets=titan_arena.PRESETS,
        events_of=titan_arena.CATALOG_GAMES,
        adjudicator=titan_arena.adjudicate_match,
        record_shape=titan_arena.TitanArenaLog,
        seat_order=titan_arena.in_seat_order,
        stored_key="tiebreaks",
        tool=_titan_arena_tool,
    ),
    Game(
        "rite-of-command",
        adjudicator=rite_of_command.adjudicate_match,
        record_shape=rite_of_command.RiteOfCommandLog,
        stored_key="rings",
        tool=_rite_of_command_tool,
        first_seat=rite_of_command.first_seat,
    ),
    Game(
        "battlebooks-royal",
        presets=battlebooks_royal.PRESETS,
        events_of=(battlebooks.GAME,),
        adjudicator=battlebooks_royal.adjudicate_match,
        record_shape=battlebooks_royal.BattleRoyalLog,
        stored_key="holders",
        tool=_battlebooks_royal_tool,
    ),
    Game(
        "strategic-titan",
        adjudicator=strategic_titan.adjudicate_match,
        record_shape=strategic_titan.record_shape(),
        tool=_strategic_titan_tool,
    ),
    Game("battlebooks", presets=battlebooks.PRESETS, events_of=(battlebooks.GAME,)),
    Game("bga", presets=bga.PRESETS, offered=bga.OFFERED),
)


def _built(games: Sequence[Game]) -> dict[str, dict[str, Any]]:
    """Every game's presets by name, checking that no name or preset is declared twice and that
    exactly one adjudicated game has no stored key."""
    names = [g.name for g in games]
    if len(set(names)) != len(names):
        raise ImportError(f"a game is declared twice: {sorted(n for n in names if names.count(n) > 1)}")
    presets: dict[str, dict[str, Any]] = {}
    for game in games:
        for preset, settings in game.presets.items():
            if preset in presets or preset == "generic":
                raise ImportError(f"preset {preset!r} of game {game.name!r} is declared twice")
            presets[preset] = settings
    keyless = [g.name for g in games if g.adjudicator is not None and g.stored_key is None]
    if len(keyless) != 1:
        raise ImportError(
            f"exactly one adjudicated game stores its verdict without a key of its own: {keyless}"
        )
    return presets


PRESETS: Mapping[str, dict[str, Any]] = _built(GAMES)
# A preset belongs to its game (battlebooks.md "World rankings"): the catalog's games each
# preset sets up events of, from the same declarations; a preset not listed suits any game.
PRESET_GAMES: Mapping[str, tuple[str, ...]] = {
    preset: g.events_of for g in GAMES if g.events_of for preset in g.presets
}
PRESET_OFFERED: Mapping[str, Mapping[str, str]] = {
    preset: knobs for g in GAMES for preset, knobs in g.offered.items()
}
FIRST_SEATS: Mapping[str, FirstSeat] = {g.name: g.first_seat for g in GAMES if g.first_seat is not None}
ADJUDICATORS: Mapping[str, Adjudicator] = {g.name: g.adjudicator for g in GAMES if g.adjudicator is not None}
RECORD_SHAPES: Mapping[str, Any] = {g.name: g.record_shape for g in GAMES if g.adjudicator is not None}
SEAT_ORDER: Mapping[str, SeatOrder] = {g.name: g.seat_order for g in GAMES if g.seat_order is not None}


def verdict_members() -> dict[str, str]:
    """Each adjudicator's member of a match's verdict, by adjudicator name."""
    return {g.name: g.verdict_member for g in GAMES if g.adjudicator is not None}


def stored_verdict_keys() -> tuple[dict[str, str], str]:
    """How a verdict stored without its adjudicator's name is known: the key only one game's
    verdicts hold → that adjudicator, and the adjudicator of any other."""
    keyed = {g.stored_key: g.name for g in GAMES if g.stored_key is not None}
    rest = next(g.name for g in GAMES if g.adjudicator is not None and g.stored_key is None)
    return keyed, rest


def get_adjudicator(name: str) -> Adjudicator:
    adjudicator = ADJUDICATORS.get(name)
    if adjudicator is None:
        raise InvalidInput(
            f"no adjudicator named {name!r}", [Problem(("game_log",), f"game has no adjudicator {name!r}")]
        )
    return adjudicator


def in_seat_order(name: str | None, game_log: Any, seats: Sequence[tuple[str, str]]) -> Any:
    """The record with its players in the match's seat order (``seats``: (entry id, name), seat 0
    first), for the adjudicators whose records name their players; other records as they are."""
    order = SEAT_ORDER.get(name or "")
    return order(game_log, seats) if order is not None else game_log


def adjudicator_name(adjudicator: Adjudicator) -> str | None:
    """The registry's name of an adjudicator (a preset may hand in one with arguments bound)."""
    fn = adjudicator.func if isinstance(adjudicator, partial) else adjudicator
    return next((name for name, known in ADJUDICATORS.items() if known is fn), None)
