"""BATTLEBOOKS non-sanctioned formats: Last Man Standing and Battle Royal (battlebooks.md
"battlebooks-last-man-standing", "battlebooks-battle-royal", "Common rules"; formats.md
"Single elimination", "Free-for-all").

The two presets are data over the general engine (``PRESETS``). Last Man Standing is a
``single_elimination`` stage drawn by the ``draw`` method (30 players → 16 pairings with 2 byes;
65 → 64 with 63 byes); the number of games is log2 of the bracket size (``elimination_games``).
Battle Royal is one ``free_for_all`` table of 4–8 players; the engine seats them in a seeded
turn order and marks the seat holding the initiative token first.

The Battle Royal record (``game_log``) and its checker::

    {"first": 2,                         # optional: seat holding the token first
     "body_points": [30, 28, 25, 32],    # every seat's hero at the start, in seat order
     "turns": [{"attacker": 2, "target": 0,
                "attacker_body_points": 27, "target_body_points": 21}, ...]}

Each turn the token holder attacks one living player, the two play the exchange and the record
gives both heroes' body points after it; a hero at 0 body points or fewer is eliminated. Then
the token passes to the right. The record is replayed turn by turn and rejected
(``RuleViolation`` naming the rule) at the first turn where someone acts out of token order or
after elimination, attacks an eliminated player or themself, or plays on after the game ended,
and when it ends with two or more players still standing. Places are the reverse order of
elimination: the last one standing is 1st, the last eliminated 2nd, the first eliminated last.

Rulings where the spec is silent:
- Seats are numbered clockwise, so "passes to the right" / "clockwise around the table" means the
  next seat number (wrapping from the last seat to seat 0), skipping eliminated players.
- The first token holder is the match's seat marked ``first_token`` (drawn from the event seed by
  the engine). A record may name it as ``first``; a record naming another seat is rejected. The
  stateless checker, which knows no match, takes ``first`` from the record (seat 0 when absent).
- A token holder eliminated by the exchange of their own turn passes the token to the next living
  player to their right, like anyone else.
- Players eliminated by the same exchange share the place they cover (competition form, e.g. two
  eliminated together when four remain are both 3rd); if the last two fall together they share 1st.
- Body points may go up as well as down (some books heal); the checker follows the token and the
  eliminations, not each book's arithmetic. Starting body points must be positive.
- A record must be played out to the last one standing; an unfinished game is not a result
  (the organizer may still report places directly, without a record).
- The adjudicator uses no randomness: ``seed`` is accepted for the registry's signature only.
- Scoring: Last Man Standing uses the common 5/2/0 with the body-point differential (a bye is a
  win with differential 0). An elimination game must have a winner, so a draw or time-out is
  rejected there (report the winner, e.g. by remaining body points). Battle Royal ranks by place:
  ``placement`` points, linear for the table (1st 1 … last 0), ties sharing the mean.
- Neither format is sanctioned or rated; an event of these presets with ``rated`` or
  ``sanctioned`` switched on is refused at start (rankings never move). Battle Royal needs 4–8
  active players at start, whatever ``min_entries``/``capacity`` say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Required

from annotated_types import Ge, Gt, Le, MinLen
from typing_extensions import TypedDict

from app.core.errors import InvalidInput, Problem, RuleViolation
from app.core.games.adjudication import Adjudication, SeatOutcome, record_keys
from app.core.games.battlebooks import BODY_POINTS_LIMIT
from app.core.pairing.elimination import next_power_of_two

LAST_MAN_STANDING = "battlebooks-last-man-standing"
BATTLE_ROYAL = "battlebooks-battle-royal"
ROYAL_MIN, ROYAL_MAX = 4, 8

BATTLEBOOKS_SCORING: dict[str, Any] = {"scheme": "wdl", "win": 5, "draw": 2, "loss": 0, "bye": 5}

PRESETS: dict[str, dict[str, Any]] = {
    LAST_MAN_STANDING: {
        "stages": [
            {"format": "single_elimination", "name": "Last Man Standing", "table_size": 2, "method": "draw"}
        ],
        "scoring": dict(BATTLEBOOKS_SCORING),
        "tiebreaks": ["differential"],
        "sanctioned": False,
        "rated": False,
        "min_entries": 2,
    },
    BATTLE_ROYAL: {
        "stages": [{"format": "free_for_all", "name": "Battle Royal", "table_size": ROYAL_MAX}],
        "scoring": {"scheme": "placement"},
        "tiebreaks": [],
        "sanctioned": False,
        "rated": False,
        "min_entries": ROYAL_MIN,
        "capacity": ROYAL_MAX,
    },
}

# Rule names carried by RuleViolation.
RULE_TOKEN = "battle-royal/token-order"
RULE_ELIMINATED = "battle-royal/eliminated"
RULE_TARGET = "battle-royal/target"
RULE_OVER = "battle-royal/game-over"
RULE_UNFINISHED = "battle-royal/unfinished"
RULE_FIRST = "battle-royal/first-token"


def elimination_games(players: int) -> int:
    """Games of a Last Man Standing bracket: log2 of the next power of two ≥ players (0 for one)."""
    if players < 1:
        raise InvalidInput("a bracket needs players", [Problem(("players",), "must be at least 1")])
    return next_power_of_two(players).bit_length() - 1


def next_holder(current: int, alive: set[int], seats: int) -> int | None:
    """The next living seat to the right (clockwise) of ``current``; None when nobody else lives."""
    for step in range(1, seats):
        seat = (current + step) % seats
        if seat in alive:
            return seat
    return None


# --------------------------------------------------------------------------- the record


@dataclass(frozen=True)
class Turn:
    attacker: int
    target: int
    attacker_body_points: float
    target_body_points: float


@dataclass(frozen=True)
class Record:
    first: int | None
    body_points: tuple[float, ...]
    turns: tuple[Turn, ...]


def _number(v: Any) -> bool:
    """A number of body points: not a bool, finite and within ±BODY_POINTS_LIMIT."""
    return (
        isinstance(v, int | float)
        and not isinstance(v, bool)
        and -BODY_POINTS_LIMIT <= v <= BODY_POINTS_LIMIT
    )


# The record's shape (the parser reads these keys and no others; the OpenAPI document's schema of
# a Battle Royal ``game_log``). Seats are numbered from 0; they are checked against the table.
SeatNumber = Annotated[int, Ge(0)]
BodyPoints = Annotated[float, Ge(-BODY_POINTS_LIMIT), Le(BODY_POINTS_LIMIT)]


class BattleRoyalTurn(TypedDict, closed=True):
    """One turn: the attacker, its target and both seats' body points after it."""

    attacker: SeatNumber
    target: SeatNumber
    attacker_body_points: BodyPoints
    target_body_points: BodyPoints


class BattleRoyalLog(TypedDict, total=False, closed=True):
    """A Battle Royal table's record: the first attacker, the starting body points, the turns."""

    first: SeatNumber | None
    body_points: Required[list[Annotated[float, Gt(0), Le(BODY_POINTS_LIMIT)]]]
    turns: Required[Annotated[list[BattleRoyalTurn], MinLen(1)]]


def _seat(v: Any, seats: int) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int):
        return "must be a seat number (an integer)"
    if not 0 <= v < seats:
        return f"seat {v} is not at this table of {seats} (seats 0–{seats - 1})"
    return None


def parse_record(game_log: Any, seats: int) -> Record:
    """The record's structure checked (every problem at once, located under ``game_log``)."""
    problems: list[Problem] = []
    base: tuple[str | int, ...] = ("game_log",)
    if seats < 2:
        raise InvalidInput(
            "a Battle Royal record needs a table of 2 or more",
            [Problem(("seats",), "must be at least 2")],
        )
    if not isinstance(game_log, Mapping):
        raise InvalidInput("the record must be an object", [Problem(base, "must be an object")])
    for key in game_log:
        if key not in record_keys(BattleRoyalLog):
            problems.append(Problem((*base, key), f"unknown key {key!r}"))
    first = game_log.get("first")
    if first is not None and (err := _seat(first, seats)):
        problems.append(Problem((*base, "first"), err))
    bp = game_log.get("body_points")
    if not isinstance(bp, list) or len(bp) != seats:
        problems.append(Problem((*base, "body_points"), f"must list the {seats} seats' starting body points"))
        bp = None
    else:
        for i, v in enumerate(bp):
            if not _number(v) or v <= 0:
                problems.append(
                    Problem(
                        (*base, "body_points", i), f"must be a positive number up to {BODY_POINTS_LIMIT:,}"
                    )
                )
    raw_turns = game_log.get("turns")
    turns: list[Turn] = []
    if not isinstance(raw_turns, list) or not raw_turns:
        problems.append(Problem((*base, "turns"), "must be a non-empty list of turns"))
    else:
        for i, t in enumerate(raw_turns):
            loc = (*base, "turns", i)
            if not isinstance(t, Mapping):
                problems.append(Problem(loc, "must be an object"))
                continue
            bad = len(problems)
            for key in t:
                if key not in record_keys(BattleRoyalTurn):
                    problems.append(Problem((*loc, key), f"unknown key {key!r}"))
            for key in ("attacker", "target"):
                if key not in t:
                    problems.append(Problem((*loc, key), "is required"))
                elif err := _seat(t[key], seats):
                    problems.append(Problem((*loc, key), err))
            for key in ("attacker_body_points", "target_body_points"):
                if key not in t:
                    problems.append(Problem((*loc, key), "is required"))
                elif not _number(t[key]):
                    problems.append(
                        Problem(
                            (*loc, key),
                            f"must be a number from {-BODY_POINTS_LIMIT:,} to {BODY_POINTS_LIMIT:,}",
                        )
                    )
            if len(problems) == bad:
                turns.append(
                    Turn(
                        int(t["attacker"]),
                        int(t["target"]),
                        float(t["attacker_body_points"]),
                        float(t["target_body_points"]),
                    )
                )
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    assert bp is not None
    return Record(first, tuple(float(v) for v in bp), tuple(turns))


@dataclass(frozen=True)
class Verdict:
    first: int
    holders: tuple[int, ...]  # the token holder of every turn
    eliminations: tuple[tuple[int, int], ...]  # (turn index, seat) in order of elimination
    body_points: tuple[float, ...]  # after the last turn
    places: tuple[int, ...]  # per seat; the reverse order of elimination

    def as_dict(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "holders": list(self.holders),
            "eliminations": [{"turn": t, "seat": s} for t, s in self.eliminations],
            "body_points": list(self.body_points),
            "places": list(self.places),
        }


def check_record(record: Record, seats: int, first_token: int | None = None) -> Verdict:
    """Replay the record: token order, eliminations, places (RuleViolation at the first broken rule)."""
    if first_token is not None and record.first is not None and record.first != first_token:
        raise RuleViolation(
            RULE_FIRST,
            f"the record starts with seat {record.first}, but seat {first_token} holds the token first",
        )
    first = first_token if first_token is not None else (record.first or 0)
    body = list(record.body_points)
    alive = set(range(seats))
    out_at: dict[int, int] = {}  # seat → elimination moment (turn index)
    holders: list[int] = []
    eliminations: list[tuple[int, int]] = []
    holder: int | None = first
    for i, turn in enumerate(record.turns):
        where = f"turn {i + 1}"
        if len(alive) <= 1 or holder is None:
            raise RuleViolation(RULE_OVER, f"{where}: the game was over after turn {i}; no one acts after it")
        if turn.attacker not in alive:
            raise RuleViolation(
                RULE_ELIMINATED,
                f"{where}: seat {turn.attacker} acts after being eliminated at turn {out_at[turn.attacker] + 1}",
            )
        if turn.attacker != holder:
            raise RuleViolation(
                RULE_TOKEN, f"{where}: seat {turn.attacker} acts out of turn; seat {holder} holds the token"
            )
        if turn.target == turn.attacker:
            raise RuleViolation(RULE_TARGET, f"{where}: seat {turn.attacker} cannot attack themself")
        if turn.target not in alive:
            raise RuleViolation(
                RULE_ELIMINATED,
                f"{where}: seat {turn.target} is attacked after being eliminated at turn "
                f"{out_at[turn.target] + 1}",
            )
        holders.append(holder)
        body[turn.attacker] = turn.attacker_body_points
        body[turn.target] = turn.target_body_points
        for seat in sorted((turn.attacker, turn.target)):
            if body[seat] <= 0:
                alive.discard(seat)
                out_at[seat] = i
                eliminations.append((i, seat))
        holder = next_holder(holder, alive, seats)
    if len(alive) > 1:
        standing = ", ".join(str(s) for s in sorted(alive))
        raise RuleViolation(
            RULE_UNFINISHED, f"the record ends with seats {standing} still standing; play it to the last one"
        )
    # Reverse order of elimination: a later elimination moment is a better place; survivors best.
    last = len(record.turns)
    moment = [out_at.get(s, last) for s in range(seats)]
    places = tuple(1 + sum(1 for m in moment if m > moment[s]) for s in range(seats))
    return Verdict(first, tuple(holders), tuple(eliminations), tuple(body), places)


def adjudicate_match(
    game_log: dict[str, Any], seats: int, seed: str, first_token: int | None = None
) -> Adjudication:
    """The registry's entry point: places of a Battle Royal table from its record."""
    del seed  # the record decides; nothing is drawn
    verdict = check_record(parse_record(game_log, seats), seats, first_token)
    return Adjudication(
        outcome="played",
        seats=[SeatOutcome(seat=s, place=verdict.places[s]) for s in range(seats)],
        details=verdict.as_dict(),
    )
