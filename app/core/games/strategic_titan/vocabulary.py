"""Strategic Titan: the record's vocabulary and its parsing (strategic-titan.md).

The tables the rules name: the Towers (5.1, 5.3), the starting mulligans (7.1), the 12-marker cap
(6.2), the basic creatures and recruit prices (7.9), the encounter outcomes (6.3-6.7), the reasons a
mulligan is spent (7.2-7.9) and the starting options (9.1-9.5). ``SCHEMA`` is the event vocabulary:
every event type with its fields. ``parse_events`` checks a record against it and normalizes it into
``Event``s; a malformed event (unknown type, missing field, wrong value) is an ``InvalidInput`` with
``loc = ("events", index, field)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal, NotRequired, Required, Union

from annotated_types import Ge, Le, Len, MinLen
from typing_extensions import TypedDict

from app.core.errors import InvalidInput, Problem
from app.core.games.adjudication import UNIQUE
from app.core.limits import invisible

TOWERS = (100, 200, 300, 400, 500, 600)
START_MULLIGANS = 6
MAX_MARKERS = 12
BASIC = ("Centaur", "Gargoyle", "Ogre")
# 7.9: the price in mulligans of a recruit when the basic Tower creatures are gone; None = all (>= 7).
RECRUIT_COST: dict[str, int | None] = {
    "Lion": 1,
    "Troll": 1,
    "Cyclops": 1,
    "Ranger": 2,
    "Gorgon": 2,
    "Warbear": 3,
    "Minotaur": 3,
    "Wyvern": 4,
    "Gryphon": 4,
    "Guardian": 4,
    "Unicorn": 5,
    "Behemoth": 5,
    "Angel": 6,
    "Warlock": 6,
    "Giant": None,
    "Colossus": None,
    "Serpent": None,
    "Hydra": None,
    "Dragon": None,
    "Archangel": None,
}
CREATURES = (*BASIC, *RECRUIT_COST)
OUTCOMES = ("destroyed", "mutual", "surrendered", "defended", "time-out", "forfeited")
SPEND_RULES = {
    "retraction": "7.2",
    "correction": "7.21",
    "split-retraction": "7.23",
    "forgotten-split": "7.24",
    "reroll": "7.5",
    "battleland": "7.8",
    "recruit": "7.9",
}
OPTION_VALUES = {"start": ("standard", "warlock", "variety"), "titans": ("single", "double", "triple")}

# Every number in a record is bounded, so that no record can make a replay stall or overflow:
# points scored in one event, mulligans spent or re-rolls demanded in one event, a board hex, the
# legions of one player (never more than the 12 markers, 6.2), and the events of one record.
MAX_POINTS = 100_000
MAX_COUNT = 1_000
MAX_HEX = 9_999
MAX_EVENTS = 10_000
# kind -> (lowest, highest) of the whole numbers it takes
BOUNDS: dict[str, tuple[int, int]] = {
    "points": (0, MAX_POINTS),
    "count": (1, MAX_COUNT),
    "legions": (0, MAX_MARKERS),
    "stacks": (1, MAX_MARKERS),
    "hex": (1, MAX_HEX),
}


# --- the event vocabulary ----------------------------------------------------------------------
# type -> {field: (kind, required)}, each type with the rules section its handler applies (the
# handlers: replay.HANDLERS). A kind is checked and normalized by _parse_value: player (a name or a
# number 1-n, kept as a 0-based index), number (1-6 or "pass"), the bounded whole numbers of BOUNDS
# (points, count, legions, stacks, hex), bool, tower (one of TOWERS), what ("movement" or "split"),
# outcome (OUTCOMES), reason (SPEND_RULES), creature (CREATURES, any case), player_legions and
# player_points ({player: legions or points}), towers (one distinct Tower per player), order (every
# player once), options (OPTION_VALUES, legion_markers). Types are strict: `true` is not a number
# and "2" is not a player (but for an object's keys, which JSON makes strings).
SCHEMA: dict[str, dict[str, tuple[str, bool]]] = {
    # 9 (and 5.3): the first event: starting Towers, options, turn order
    "start": {"towers": ("towers", True), "options": ("options", False), "order": ("order", False)},
    # 4: the turn's movement number (4.1-4.8), in turn order (3.2)
    "movement": {
        "player": ("player", True),
        "number": ("number", True),
        "centre": ("legions", False),
        "centre_blocked": ("bool", False),
    },
    # 5: a Titan legion's teleport (5.1, 5.2); a stop in a Tower (5.3)
    "teleport": {"player": ("player", True), "to": ("hex", True), "first_move": ("bool", False)},
    "stop": {"player": ("player", True), "tower": ("tower", True)},
    # 6: a split (free, or forgotten: 7.24)
    "split": {"player": ("player", True), "forgotten": ("bool", False)},
    # 7: the turn's movement retracted (7.2), or a split (7.23)
    "retract": {"player": ("player", True), "what": ("what", True), "stacks": ("stacks", False)},
    # 4: split legions recombined (4.5)
    "recombine": {"player": ("player", True)},
    # 6: an attack, closed by its encounter (7.6 when the defending Titan is attacked)
    "attack": {"attacker": ("player", True), "defender": ("player", True), "titan": ("bool", False)},
    # 7: re-rolls demanded in a battle (7.5-7.7)
    "reroll": {"player": ("player", True), "titan": ("bool", False), "count": ("count", False)},
    # 6: a battle's outcome (6.3-6.7), the board after it (6.5), points scored (7.41)
    "encounter": {
        "attacker": ("player", True),
        "defender": ("player", True),
        "outcome": ("outcome", True),
        "titan": ("bool", False),
        "legions": ("player_legions", False),
        "points": ("player_points", False),
    },
    # 7: mulligans spent, with the reason (7.2-7.9)
    "mulligan": {
        "player": ("player", True),
        "count": ("count", True),
        "reason": ("reason", True),
        "number": ("number", False),
        "creature": ("creature", False),
    },
    # 7: a recruit, paid with mulligans (7.9) or not; no Warlock after a first-move teleport (5.2)
    "recruit": {
        "player": ("player", True),
        "creature": ("creature", True),
        "mulligans": ("bool", False),
        "tower": ("tower", False),
    },
    # 8: a Titan killed: resurrection (8.1, 8.2) or out of the game
    "titan_killed": {"player": ("player", True), "tower": ("tower", False)},
    # 7: points scored outside an encounter (7.41)
    "points": {"player": ("player", True), "points": ("points", True)},
    # the game called
    "end": {},
}
EVENT_TYPES = tuple(SCHEMA)
# the events that may come between an attack and its encounter (any other is rule "record")
DURING_AN_ATTACK = ("reroll", "encounter", "mulligan", "recruit", "points")

MIN_PLAYERS, MAX_PLAYERS = 2, 6


# --- the record's shape --------------------------------------------------------------------------
# Each value kind of the vocabulary as a type (what _parse_value accepts, less the checks against
# the game's players); with SCHEMA they make the record's shape, the OpenAPI document's schema of
# a Strategic Titan ``game_log``: one object per event type, told apart by ``type``.
_literal: Any = Literal  # the vocabulary's values, spelled once above
_union: Any = Union
_typed_dict: Any = TypedDict
_dict: Any = dict
_list: Any = list
PlayerRef = Annotated[int, Ge(1), Le(MAX_PLAYERS)] | Annotated[str, MinLen(1)]


def _bounded_type(kind: str) -> Any:
    low, high = BOUNDS[kind]
    return Annotated[int, Ge(low), Le(high)]


def _options_type() -> Any:
    fields: dict[str, Any] = {key: _literal[values] for key, values in OPTION_VALUES.items()}
    fields["legion_markers"] = Annotated[int, Ge(1), Le(MAX_MARKERS)]
    return _typed_dict("StrategicTitanRecordOptions", fields, total=False, closed=True)


def _kind_types() -> dict[str, Any]:
    tower = _literal[TOWERS]
    return {
        "player": PlayerRef,
        "number": Annotated[int, Ge(1), Le(6)] | Literal["pass"],
        **{kind: _bounded_type(kind) for kind in BOUNDS},
        "bool": bool,
        "tower": tower,
        "what": Literal["movement", "split"],
        "outcome": _literal[OUTCOMES],
        "reason": _literal[tuple(SPEND_RULES)],
        "creature": Annotated[str, MinLen(1)],  # one of CREATURES, in any case
        "player_legions": _dict[str, _bounded_type("legions")],
        "player_points": _dict[str, _bounded_type("points")],
        # one distinct Tower per player (5.3); every player once
        "towers": Annotated[_list[tower], Len(MIN_PLAYERS, MAX_PLAYERS), UNIQUE],
        "order": Annotated[list[PlayerRef], Len(MIN_PLAYERS, MAX_PLAYERS), UNIQUE],
        "options": _options_type(),
    }


@lru_cache(maxsize=1)
def record_shape() -> Any:
    """The record {players?, options?, events} as a ``TypedDict``, its events from ``SCHEMA`` (the
    record's other keys are not read, so not refused)."""
    kinds = _kind_types()
    events = []
    for kind, fields in SCHEMA.items():
        typed: dict[str, Any] = {"type": Required[_literal[kind]]}
        for name, (vkind, required) in fields.items():
            typed[name] = Required[kinds[vkind]] if required else NotRequired[kinds[vkind] | None]
        title = "".join(part.title() for part in kind.split("_"))
        events.append(_typed_dict(f"StrategicTitan{title}Event", typed, closed=True))
    players = Annotated[list[Annotated[str, MinLen(1)]], Len(MIN_PLAYERS, MAX_PLAYERS)]
    return _typed_dict(
        "StrategicTitanLog",
        {
            "players": players | None,
            "options": kinds["options"] | None,
            # a finished game's record holds its start event at least
            "events": Required[Annotated[_list[_union[tuple(events)]], Len(1, MAX_EVENTS)]],
        },
        total=False,
    )


@dataclass(frozen=True)
class Event:
    """One parsed event: its position, type and normalized fields (players as 0-based indices)."""

    index: int
    type: str
    f: dict[str, Any]


# --- parsing -----------------------------------------------------------------------------------
def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _player_ref(v: Any, players: list[str], key: bool = False) -> int | None:
    """A player's number from 1: its name, or its number — as a digit string only for an object's
    key (JSON keys are strings)."""
    if _is_int(v) and 1 <= v <= len(players):
        return int(v)
    if isinstance(v, str):
        if v in players:
            return players.index(v) + 1
        if key and v.isdigit() and 1 <= int(v) <= len(players):
            return int(v)
    return None


def _bounded(kind: str, v: Any) -> str | None:
    low, high = BOUNDS[kind]
    if _is_int(v) and low <= v <= high:
        return None
    return f"must be a whole number from {low} to {high:,}"


_COMPOUND = frozenset({"player_legions", "player_points", "towers", "order", "options"})


def _parse_value(kind: str, v: Any, players: list[str]) -> tuple[Any, str | None]:
    """(normalized value, error message or None)."""
    if kind in _COMPOUND:
        return _parse_compound(kind, v, players)
    return _parse_scalar(kind, v, players)


def _parse_scalar(kind: str, v: Any, players: list[str]) -> tuple[Any, str | None]:
    if kind == "player":
        ref = _player_ref(v, players)
        if ref is None:
            return None, f"{v!r} is not a player of this game (a name or a number 1-{len(players)})"
        return ref - 1, None
    if kind == "number":
        if v == "pass" or (_is_int(v) and 1 <= v <= 6):
            return v, None
        return None, 'a movement number is 1-6 or "pass" (4.1, 4.7)'
    if kind in BOUNDS:
        err = _bounded(kind, v)
        if err and kind == "hex":
            err = f"must be a board hex number from 1 to {MAX_HEX:,}, e.g. 300"
        return (None, err) if err else (v, None)
    if kind == "bool":
        return (v, None) if isinstance(v, bool) else (None, "must be true or false")
    if kind == "tower":
        return (v, None) if _is_int(v) and v in TOWERS else (None, f"must be a Tower: one of {list(TOWERS)}")
    if kind == "what":
        ok = v in ("movement", "split")
        return (v, None) if ok else (None, 'must be "movement" (7.2) or "split" (7.23)')
    if kind == "outcome":
        # a list or an object is no outcome or reason (and cannot be looked up in a set)
        return (
            (v, None) if isinstance(v, str) and v in OUTCOMES else (None, f"must be one of {list(OUTCOMES)}")
        )
    if kind == "reason":
        ok = isinstance(v, str) and v in SPEND_RULES
        return (v, None) if ok else (None, f"must be one of {list(SPEND_RULES)}")
    if kind == "creature":
        if isinstance(v, str):
            for c in CREATURES:
                if c.lower() == v.lower():
                    return c, None
        return None, f"unknown creature {v!r}"
    raise AssertionError(kind)  # pragma: no cover


def _parse_compound(kind: str, v: Any, players: list[str]) -> tuple[Any, str | None]:
    if kind in ("player_legions", "player_points"):
        if not isinstance(v, dict):
            return None, "must be an object of player -> whole number"
        out: dict[int, int] = {}
        for k, n in v.items():
            ref = _player_ref(k, players, key=True)
            if ref is None:
                return None, f"{k!r} is not a player of this game"
            err = _bounded("legions" if kind == "player_legions" else "points", n)
            if err:
                return None, f"{k!r}: {err}"
            out[ref - 1] = n
        return out, None
    if kind == "towers":
        if not isinstance(v, list) or len(v) != len(players):
            return None, f"must list one starting Tower per player ({len(players)})"
        if any(not _is_int(t) or t not in TOWERS for t in v):
            return None, f"every starting Tower is one of {list(TOWERS)}"
        if len(set(v)) != len(v):
            return None, "players start in different Towers"
        return list(v), None
    if kind == "order":
        if not isinstance(v, list):
            return None, "must list the players in turn order"
        refs = [_player_ref(x, players) for x in v]
        if None in refs or sorted(r for r in refs if r) != list(range(1, len(players) + 1)):
            return None, "must name every player exactly once"
        return [r - 1 for r in refs if r], None
    if kind == "options":
        problems = option_problems(v)
        return (dict(v), None) if not problems else (None, problems[0])
    raise AssertionError(kind)  # pragma: no cover


def option_problems(options: Any) -> list[str]:
    if not isinstance(options, dict):
        return ["options must be an object"]
    out = []
    for key, value in options.items():
        if key in OPTION_VALUES:
            if value not in OPTION_VALUES[key]:
                out.append(f"options.{key} must be one of {list(OPTION_VALUES[key])}")
        elif key == "legion_markers":
            if not (_is_int(value) and 1 <= value <= MAX_MARKERS):
                out.append("options.legion_markers must be 1-12 (6.1, 6.2, 9.4, 9.5)")
        else:
            out.append(f"unknown option {key!r} (known: start, titans, legion_markers)")
    return out


def parse_players(players: Any) -> list[str]:
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InvalidInput("players: list 2-6 player names", [Problem(("players",), "list 2-6 names")])
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name or invisible(name):
            raise InvalidInput(
                f"players[{i}]: a name must contain a visible character",
                [Problem(("players", i), "must contain a visible character")],
            )
    if len(set(players)) != len(players):
        raise InvalidInput(
            "players: names must be distinct", [Problem(("players",), "names must be distinct")]
        )
    return list(players)


def parse_events(players: list[str], events: Any) -> list[Event]:
    """Validate the vocabulary; every problem found is reported with its ("events", i, field)."""
    if not isinstance(events, list):
        raise InvalidInput("events must be a list", [Problem(("events",), "must be a list")])
    if len(events) > MAX_EVENTS:
        msg = f"a record holds at most {MAX_EVENTS:,} events, not {len(events):,}"
        raise InvalidInput(msg, [Problem(("events",), msg)])
    problems: list[Problem] = []
    out: list[Event] = []
    for i, raw in enumerate(events):
        if not isinstance(raw, dict):
            problems.append(Problem(("events", i), "an event is an object {type, …}"))
            continue
        kind = raw.get("type")
        if kind not in SCHEMA:
            problems.append(
                Problem(("events", i, "type"), f"unknown event type {kind!r}; one of {list(SCHEMA)}")
            )
            continue
        schema = SCHEMA[kind]
        fields: dict[str, Any] = {}
        for name in raw:
            if name != "type" and name not in schema:
                problems.append(Problem(("events", i, name), f"a {kind} event has no field {name!r}"))
        for name, (vkind, required) in schema.items():
            if name not in raw or raw[name] is None:
                if required:
                    problems.append(Problem(("events", i, name), f"a {kind} event needs {name!r}"))
                continue
            value, err = _parse_value(vkind, raw[name], players)
            if err:
                problems.append(Problem(("events", i, name), err))
            else:
                fields[name] = value
        if kind == "start" and i != 0:
            problems.append(Problem(("events", i, "type"), "start is the first event, and only once"))
        if i == 0 and kind != "start":
            problems.append(Problem(("events", 0, "type"), "the record begins with a start event"))
        if kind in ("attack", "encounter") and fields.get("attacker", -1) == fields.get("defender"):
            problems.append(Problem(("events", i, "defender"), "a player cannot attack himself"))
        out.append(Event(i, kind, fields))
    if problems:
        first = problems[0]
        where = ".".join(str(p) for p in first.loc)
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InvalidInput(f"{where}: {first.msg}{more}", problems)
    return out
