"""Event settings: a preset's knobs overridden key by key, validated as a whole (api.md "Event settings").

Every problem is collected and reported at once, each with its location, so an organizer
fixes a settings document in one round trip. Unknown keys are an error, never ignored.

The stored document (``Event.settings``, ``Stage.settings``) stays the JSON the client sent, filled
and validated; services read it through ``EventSettings`` and ``StageSettings``, frozen dataclasses
parsed here, so every knob has one type and one default (the dataclass field's).
Rulings where the spec is silent:
- ``best_of`` is the length of a ``series`` stage (default 3) and, in an elimination stage, the
  games of each match (default 1); each game of a series is one match of one game.
- ``block`` (rounds scored together) defaults to 1; ``table_size`` to the game's smallest table,
  filled in at creation.
- ``release`` (``all`` or ``rounds``): an N-seat round robin releases every table at once unless
  it says ``rounds``; a 2-seat round robin and a series release one round (one game) at a time
  unless they say ``all``.
- ``on_drop``: what becomes of a dropped entry's remaining games in the stage — ``bye`` (the
  default: it is paired no more; a round robin's opponents get a bye), ``resign`` (each is lost,
  a forfeit won by the others) or ``violation`` (the same, scored as the dropper's violation).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.scoring import points_per_seat_problems
from app.core.vocabulary import StageFormatName

STAGE_FORMATS = tuple(StageFormatName)

Check = Callable[[Any], str | None]


class Rule:
    """One key's check and its JSON Schema, made together so the contract (the OpenAPI document's
    ``EventSettings``) is generated from what the server validates with, never kept beside it."""

    def __init__(self, check: Check, schema: dict[str, Any]) -> None:
        self.check = check
        self.schema = schema

    def __call__(self, v: Any) -> str | None:
        return self.check(v)


def _int(lo: int, hi: int | None = None) -> Rule:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int):
            return "must be an integer"
        if v < lo or (hi is not None and v > hi):
            return f"must be between {lo} and {hi}" if hi is not None else f"must be at least {lo}"
        return None

    bounds = {"minimum": lo, **({"maximum": hi} if hi is not None else {})}
    return Rule(check, {"type": "integer", **bounds})


_num = Rule(
    lambda v: None if isinstance(v, int | float) and not isinstance(v, bool) else "must be a number",
    {"type": "number"},
)
_bool = Rule(lambda v: None if isinstance(v, bool) else "must be true or false", {"type": "boolean"})
_NON_EMPTY = {"type": "string", "minLength": 1, "pattern": r"\S"}
_str = Rule(lambda v: None if isinstance(v, str) and v.strip() else "must be a non-empty string", _NON_EMPTY)


def _one_of(*choices: str) -> Rule:
    def check(v: Any) -> str | None:
        return None if v in choices else f"must be one of {', '.join(choices)}"

    return Rule(check, {"type": "string", "enum": list(choices)})


def _odd_check(v: Any) -> str | None:
    err = _int(1)(v)
    return err or (None if v % 2 == 1 else "must be odd")


_odd = Rule(_odd_check, {"type": "integer", "minimum": 1, "not": {"multipleOf": 2}})


def _iso_datetime_check(v: Any) -> str | None:
    try:
        ok = isinstance(v, str) and datetime.fromisoformat(v).tzinfo is not None
    except ValueError:
        ok = False
    return None if ok else "must be an ISO 8601 date and time with a time zone"


_iso_datetime = Rule(_iso_datetime_check, {"type": "string", "format": "date-time"})


STAGE_KEYS: dict[str, Rule] = {
    # A stage may opt out of the event's ratings (bga-round-robin.md: the best-of-3 final is unrated).
    "rated": _bool,
    "format": _one_of(*STAGE_FORMATS),
    "name": _str,
    "table_size": _int(1, 64),
    "rounds": _int(1, 1000),
    "pairing": _one_of("matching", "adjacent"),
    "first_round": _one_of("random", "rating"),
    "avoid_rematches": _bool,
    # who gets a Swiss bye (formats.md "Swiss, 2 seats"; battlebooks.md: the lowest score)
    "bye": _one_of("fewest_byes", "lowest_score"),
    "double": _bool,
    "groups": _int(1, 64),
    "group_method": _one_of("random", "snake"),
    "method": _one_of("draw", "seeded"),
    "best_of": _odd,
    "block": _int(1, 100),
    "mode": _one_of("complete", "games"),
    "games_per_player": _int(1, 1000),
    "advance_per_table": _int(1, 64),
    "late_entries": _bool,
    "release": _one_of("all", "rounds"),
    "on_drop": _one_of("bye", "resign", "violation"),
    "time_budget": _int(1, 120),
    # Swiss: keep entries of one club apart (default: on when any entry has a club), and allocate
    # seats by history (default: on for 2-seat stages; formats.md "Seat allocation").
    "avoid_same_club": _bool,
    "seat_balance": _bool,
    # double elimination: a second grand final when the losers' bracket champion wins the first
    "grand_final_reset": _bool,
}

ADVANCE_KEYS: dict[str, Rule] = {
    "top": _int(1),
    "group_winners": _bool,
    "fill_to": Rule(
        lambda v: (
            None
            if isinstance(v, list) and v and all(isinstance(x, int) and x > 0 for x in v)
            else "must be a non-empty list of positive integers"
        ),
        {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1}},
    ),
}

RATING_KEYS: dict[str, Rule] = {
    "pool": _str,
    "k": _num,
    "period": _one_of("game", "event"),
    "start": _num,
    "per_character": _bool,
    "pools": _one_of("overall", "character", "both"),
}

TOP_KEYS: dict[str, Rule] = {
    # BGA round robins (bga-round-robin.md): the table settings every table must use, and the
    # deadlines (ISO 8601 with a time zone) before which their closing routes refuse to close.
    "table_settings": Rule(
        lambda v: (
            None
            if isinstance(v, dict)
            and all(
                isinstance(k, str)
                and (
                    (isinstance(x, str) and x.strip())
                    or (isinstance(x, list) and x and all(isinstance(y, str) and y.strip() for y in x))
                )
                for k, x in v.items()
            )
            else "must be an object of setting name to its allowed value (a string, or a list of strings)"
        ),
        {
            "type": "object",
            "additionalProperties": {
                "anyOf": [_NON_EMPTY, {"type": "array", "minItems": 1, "items": _NON_EMPTY}]
            },
        },
    ),
    "join_deadline": _iso_datetime,
    "final_deadline": _iso_datetime,
    "violation_points": _num,
    "victim_points": _num,
    "ranking_basis": _one_of("total", "average"),
    "h2h_default": _num,
    "sanctioned": _bool,
    "rated": _bool,
    "capacity": _int(1, 100_000),
    "min_entries": _int(1, 100_000),
    "late_entries": _bool,
    # an optional check-in before the start (api.md "Check-in")
    "check_in": _bool,
    # BATTLEBOOKS (battlebooks.md): Secret Wars' book catalog; game time limits in minutes.
    "catalog": Rule(
        lambda v: (
            None
            if isinstance(v, list)
            and len(v) >= 2
            and all(isinstance(b, str) and b.strip() for b in v)
            and len(set(v)) == len(v)
            else "must be a list of at least two different book names"
        ),
        {"type": "array", "minItems": 2, "uniqueItems": True, "items": _NON_EMPTY},
    ),
    "game_minutes": _int(1, 600),
    "final_minutes": _int(15, 600),
}
# Keys whose content belongs to the standings engine (validated there).
STANDINGS_KEYS = ("scoring", "tiebreaks")
# A stage may rank by its own scoring, tie-breaks and basis (e.g. heats seeded differently from a final).
STAGE_STANDINGS_KEYS = ("scoring", "tiebreaks", "ranking_basis")

DEFAULT_SETTINGS: dict[str, Any] = {
    "stages": [{"format": "swiss", "rounds": 5, "pairing": "matching", "avoid_rematches": True}],
    "sanctioned": False,
    "rated": False,
}


@dataclass(frozen=True)
class GameLimits:
    key: str
    min_seats: int
    max_seats: int


def fill_defaults(settings: dict[str, Any], game: GameLimits) -> dict[str, Any]:
    """Stages without a table size play at the game's smallest table."""
    stages = settings.get("stages")
    if isinstance(stages, list):
        for stage in stages:
            if isinstance(stage, dict) and "table_size" not in stage:
                stage["table_size"] = game.min_seats
    return settings


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Key by key: a key given in ``override`` replaces the preset's value for that key."""
    out = dict(base)
    out.update(override)
    return out


def _check_keys(
    obj: Any, keys: Mapping[str, Check], loc: tuple[str | int, ...], problems: list[Problem]
) -> None:
    if not isinstance(obj, dict):
        problems.append(Problem(loc, "must be an object"))
        return
    for k, v in obj.items():
        check = keys.get(k)
        if check is None:
            problems.append(Problem((*loc, k), f"unknown key {k!r}"))
        elif (err := check(v)) is not None:
            problems.append(Problem((*loc, k), err))


StandingsValidator = Callable[[dict[str, Any]], list[Problem]]


def validate(
    settings: dict[str, Any], game: GameLimits, standings_validator: StandingsValidator | None = None
) -> dict[str, Any]:
    """Check a complete settings document; return it, or raise InvalidInput listing every problem."""
    problems: list[Problem] = []
    if not isinstance(settings, dict):
        raise InvalidInput("settings must be an object", [Problem(("settings",), "must be an object")])
    for k, v in settings.items():
        if k == "stages" or k in STANDINGS_KEYS:
            continue
        if k == "rating":
            _check_keys(v, RATING_KEYS, ("settings", "rating"), problems)
            continue
        check = TOP_KEYS.get(k)
        if check is None:
            problems.append(Problem(("settings", k), f"unknown key {k!r}"))
        elif (err := check(v)) is not None:
            problems.append(Problem(("settings", k), err))

    stages = settings.get("stages")
    if not isinstance(stages, list) or not stages:
        problems.append(Problem(("settings", "stages"), "must be a non-empty list of stages"))
    else:
        for i, stage in enumerate(stages):
            loc: tuple[str | int, ...] = ("settings", "stages", i)
            if not isinstance(stage, dict):
                problems.append(Problem(loc, "must be an object"))
                continue
            if "format" not in stage:
                problems.append(Problem((*loc, "format"), "is required"))
            plain = {k: v for k, v in stage.items() if k != "advance" and k not in STAGE_STANDINGS_KEYS}
            _check_keys(plain, STAGE_KEYS, loc, problems)
            if "advance" in stage:
                _check_keys(stage["advance"], ADVANCE_KEYS, (*loc, "advance"), problems)
            size = stage.get("table_size")
            if (
                isinstance(size, int)
                and not isinstance(size, bool)
                and not (game.min_seats <= size <= game.max_seats)
            ):
                problems.append(
                    Problem(
                        (*loc, "table_size"),
                        f"{size} is outside the {game.min_seats}–{game.max_seats} seats of game {game.key!r}",
                    )
                )

    cap, low = settings.get("capacity"), settings.get("min_entries")
    if isinstance(cap, int) and isinstance(low, int) and low > cap:
        problems.append(Problem(("settings", "min_entries"), f"{low} is above the capacity {cap}"))

    if standings_validator is not None:
        problems.extend(standings_validator(settings))
        for i, stage in enumerate(stages if isinstance(stages, list) else []):
            if isinstance(stage, dict) and any(k in stage for k in STAGE_STANDINGS_KEYS):
                own = {k: stage[k] for k in STAGE_STANDINGS_KEYS if k in stage}
                for p in standings_validator(own):
                    problems.append(Problem(("settings", "stages", i, *p.loc[1:]), p.msg))

    problems.extend(points_per_seat_problems(settings, game.min_seats))
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the event settings", problems)
    return settings


# --------------------------------------------------------------------------- typed settings
@dataclass(frozen=True)
class AdvanceRule:
    """Which entries of the stage before a stage takes (formats.md "Stages"): the first ``top`` rows,
    or every group's winner; ``fill_to`` are the sizes a preset fills its field up to."""

    top: int | None = None
    group_winners: bool = False
    fill_to: tuple[int, ...] = ()

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> AdvanceRule:
        return cls(
            top=raw.get("top"),
            group_winners=bool(raw.get("group_winners", False)),
            fill_to=tuple(raw.get("fill_to") or ()),
        )


@dataclass(frozen=True)
class StageSettings:
    """One stage's knobs (``settings.stages[i]``), every default in one place."""

    format: StageFormatName
    name: str | None = None
    table_size: int = 2
    rounds: int | None = None
    pairing: str = "matching"
    first_round: str = "random"
    avoid_rematches: bool = True
    bye: str = "fewest_byes"
    double: bool = False
    groups: int = 1
    group_method: str = "random"
    method: str = "draw"
    best_of: int = 1
    block: int = 1
    mode: str = "complete"
    games_per_player: int | None = None
    advance_per_table: int = 1
    late_entries: bool | None = None  # None: the event's ``late_entries``
    release: str | None = None  # None: the format's own way (see ``releases_all``)
    on_drop: str = "bye"
    time_budget: int = 20
    rated: bool = True
    avoid_same_club: bool | None = None  # None: on when any entry of the stage has a club
    seat_balance: bool | None = None  # None: on for 2-seat Swiss
    grand_final_reset: bool = False
    advance: AdvanceRule | None = None
    # The stage's own scoring / tiebreaks / ranking_basis, over the event's (STAGE_STANDINGS_KEYS).
    standings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def releases_all(self) -> bool:
        """Every game of the stage is out at once (``release: all``); by default only an N-seat
        round robin's, while a 2-seat round robin and a series go one round at a time."""
        if self.release is not None:
            return self.release == "all"
        return self.format is StageFormatName.ROUND_ROBIN and self.table_size > 2

    @property
    def games_per_match(self) -> int:
        """Games each match of the stage is: ``best_of`` in an elimination; one game of a series."""
        return 1 if self.format is StageFormatName.SERIES else self.best_of

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> StageSettings:
        fmt = StageFormatName(raw["format"])
        plain = {
            k: v
            for k, v in raw.items()
            if k in _STAGE_FIELDS and v is not None and k not in ("format", "advance", "standings")
        }
        if "best_of" not in plain and fmt is StageFormatName.SERIES:
            plain["best_of"] = 3
        advance = raw.get("advance")
        return cls(
            format=fmt,
            advance=AdvanceRule.parse(advance) if isinstance(advance, Mapping) else None,
            standings={k: raw[k] for k in STAGE_STANDINGS_KEYS if k in raw},
            **plain,
        )


_STAGE_FIELDS = frozenset(StageSettings.__dataclass_fields__)


@dataclass(frozen=True)
class EventSettings:
    """An event's knobs (``Event.settings``). ``document`` is the stored document itself: the
    standings engine and the ratings read the keys they own from it (``standings_config``,
    ``app.core.ratings.pool_plan``)."""

    stages: tuple[StageSettings, ...]
    document: Mapping[str, Any]
    sanctioned: bool = False
    rated: bool = False
    capacity: int | None = None
    min_entries: int = 2
    late_entries: bool = False
    check_in: bool = False
    table_settings: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    join_deadline: datetime | None = None
    final_deadline: datetime | None = None
    catalog: tuple[str, ...] = ()
    game_minutes: int | None = None
    final_minutes: int | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> EventSettings:
        def when(key: str) -> datetime | None:
            value = raw.get(key)
            return datetime.fromisoformat(value) if isinstance(value, str) else None

        return cls(
            stages=tuple(StageSettings.parse(s) for s in raw.get("stages") or ()),
            document=raw,
            sanctioned=bool(raw.get("sanctioned", False)),
            rated=bool(raw.get("rated", False)),
            capacity=raw.get("capacity"),
            min_entries=int(raw.get("min_entries", 2)),
            late_entries=bool(raw.get("late_entries", False)),
            check_in=bool(raw.get("check_in", False)),
            table_settings={
                k: v if isinstance(v, str) else tuple(v) for k, v in (raw.get("table_settings") or {}).items()
            },
            join_deadline=when("join_deadline"),
            final_deadline=when("final_deadline"),
            catalog=tuple(raw.get("catalog") or ()),
            game_minutes=raw.get("game_minutes"),
            final_minutes=raw.get("final_minutes"),
        )

    @property
    def entries_needed(self) -> int:
        """Active entries the event needs to start: ``min_entries``, and 8 when sanctioned."""
        return max(self.min_entries, SANCTIONED_MINIMUM) if self.sanctioned else self.min_entries

    def standings_document(self, stage: StageSettings | None) -> dict[str, Any]:
        """The keys the standings engine reads: the event's, with the stage's own over them."""
        out = dict(self.document)
        if stage is not None:
            out.update(stage.standings)
        return out


# A sanctioned event needs at least this many players (battlebooks.md "Common rules").
SANCTIONED_MINIMUM = 8
