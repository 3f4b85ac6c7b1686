"""Strategic Titan: replaying a record, and a match's verdict from it (strategic-titan.md, sections 4-9).

``HANDLERS`` names the one handler of every event type, grouped by the rules section it applies.
``replay`` parses the record (``vocabulary``), then applies its events in order through ``apply``,
which checks what holds for any event (nothing after the end; between an attack and its encounter
only the events of the battle; rule "record"; a player left with no legion is out, unless the event
is a titan_killed of that battle) before the handler; the first rule broken stops the replay,
reported as a ``Violation`` with the state as it was before that event. ``adjudicate_match``
turns a finished record into places: players still in by points (ties share), then the eliminated,
latest first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.core.errors import InvalidInput, Problem, RuleViolation
from app.core.games.adjudication import Adjudication, SeatOutcome
from app.core.games.strategic_titan.keeper import Broken, Keeper
from app.core.games.strategic_titan.legions import on_attack, on_encounter, on_split
from app.core.games.strategic_titan.movement import on_movement, on_recombine
from app.core.games.strategic_titan.mulligans import on_mulligan, on_points, on_recruit, on_reroll, on_retract
from app.core.games.strategic_titan.opening import new_players, on_end, on_start
from app.core.games.strategic_titan.resurrection import on_titan_killed, out_of_legions
from app.core.games.strategic_titan.state import GameState
from app.core.games.strategic_titan.towers import on_stop, on_teleport
from app.core.games.strategic_titan.vocabulary import (
    DURING_AN_ATTACK,
    EVENT_TYPES,
    Event,
    option_problems,
    parse_events,
    parse_players,
)

Handler = Callable[[Keeper, Event], None]

# event type -> its handler; the fields of each type are in vocabulary.SCHEMA
HANDLERS: dict[str, Handler] = {
    # section 9: the starting options; the game called
    "start": on_start,
    "end": on_end,
    # section 4: movement numbers (and the turn order, 3.2)
    "movement": on_movement,
    "recombine": on_recombine,
    # section 5: Towers
    "teleport": on_teleport,
    "stop": on_stop,
    # section 6: legions and legion markers
    "split": on_split,
    "attack": on_attack,
    "encounter": on_encounter,
    # section 7: spending mulligans
    "retract": on_retract,
    "reroll": on_reroll,
    "mulligan": on_mulligan,
    "recruit": on_recruit,
    "points": on_points,
    # section 8: resurrection
    "titan_killed": on_titan_killed,
}
assert sorted(HANDLERS) == sorted(EVENT_TYPES), "every event type of the vocabulary has one handler"


@dataclass(frozen=True)
class Violation:
    index: int
    rule: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "rule": self.rule, "message": self.message}


@dataclass
class ReplayResult:
    valid: bool
    state: GameState
    violation: Violation | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "state": self.state.to_dict(),
            "violation": self.violation.to_dict() if self.violation else None,
        }


def _keeper(players: list[str], options: dict[str, Any], types: list[str]) -> Keeper:
    """A keeper before the start event: the players with the replay's options, no Tower yet."""
    return Keeper(players, options, types, new_players(players, options, None, None))


def apply(k: Keeper, ev: Event) -> None:
    """Apply one event: the checks that hold for every event, then its type's handler."""
    s = k.state
    if s.finished:
        raise Broken("record", "the game is over; no event follows its end")
    if ev.type != "start" and not s.started:  # pragma: no cover - parse_events forbids it
        raise Broken("record", "the record begins with a start event")
    if s.combat is not None and ev.type not in DURING_AN_ATTACK:
        raise Broken("record", f"the attack of event {s.combat.index} must close with its encounter first")
    if s.started and ev.type != "titan_killed":  # a titan_killed of the last battle may still resurrect
        out_of_legions(k, ev)
        if s.finished:
            if ev.type != "end":
                raise Broken("record", "the game is over: no other player has a legion left")
            s.events_applied = ev.index + 1  # the end of a game already decided
            return
    HANDLERS[ev.type](k, ev)
    s.events_applied = ev.index + 1


def replay(players: list[str], options: dict[str, Any] | None, events: list[Any]) -> ReplayResult:
    """Replay a record; stop at the first violation, whose state is the one before that event."""
    players = parse_players(players)
    problems = option_problems(options or {})
    if problems:
        raise InvalidInput(problems[0], [Problem(("options",), m) for m in problems])
    parsed = parse_events(players, events)
    types = [e.type for e in parsed]
    r = _keeper(players, dict(options or {}), types)
    for ev in parsed:
        try:
            apply(r, ev)
        except Broken as broken:
            clean = _keeper(players, dict(options or {}), types)
            for earlier in parsed[: ev.index]:
                apply(clean, earlier)
            return ReplayResult(False, clean.state, Violation(ev.index, broken.rule, broken.message))
    return ReplayResult(True, r.state)


def adjudicate_match(game_log: dict[str, Any], seats: int, seed: str) -> Adjudication:
    """A finished record's places: survivors by points, then the eliminated, latest first."""
    if not isinstance(game_log, dict):
        raise InvalidInput("game_log must be an object", [Problem(("game_log",), "must be an object")])
    players = game_log.get("players") or [f"Player {n}" for n in range(1, seats + 1)]
    if isinstance(players, list) and len(players) != seats:
        raise InvalidInput(
            f"the record has {len(players)} players but the match has {seats} seats",
            [Problem(("game_log", "players"), f"one player per seat ({seats})")],
        )
    result = replay(players, game_log.get("options"), game_log.get("events", []))
    if result.violation is not None:
        raise RuleViolation(
            result.violation.rule, f"event {result.violation.index}: {result.violation.message}"
        )
    places = result.state.places()
    if places is None:
        raise InvalidInput(
            "the game is not finished: the record ends before one player is left or an end event",
            [Problem(("game_log", "events"), "the game is not finished")],
        )
    outcome = "draw" if all(pl == 1 for pl in places) else "played"
    seat_outcomes = [
        SeatOutcome(seat=n, place=places[n], score=float(p.points))
        for n, p in enumerate(result.state.players)
    ]
    return Adjudication(outcome=outcome, seats=seat_outcomes, details=result.to_dict())
