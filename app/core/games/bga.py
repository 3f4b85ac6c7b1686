"""Board Game Arena round robins: the presets ``bga-round-robin`` (2 players, Seasons) and
``bga-round-robin-3p`` (3 players, Puerto Rico), as data plus the pure rules the general engine
lacks (bga-round-robin.md; seed 004, Japanese).

``bga-round-robin`` (bga-round-robin.md "2-player"):
- At 2 or fewer entries at start the event is cancelled. Up to 10 entries: one round robin, then a
  one-game final (a ``playoff`` stage) between the two highest tie-break values among those tied for
  first, only when first is shared. From 11 entries: two groups (sizes within one), then a best-of-3
  ``series`` final between the group winners, unrated (``rated: false`` on the stage).
- Finalists: ``final_decision``. A finalist who withdraws is replaced by the next entry in their
  standings (the whole round robin up to 10 entries, their group from 11), ties by tie-break value.
- Final registration: ``deadline_places`` — a finalist not registered by the deadline forfeits; both
  unregistered is a double forfeit, which the final's tie-break chain (``tiebreak_value``) gives to
  the higher value; a drawn final likewise.

``bga-round-robin-3p`` (bga-round-robin.md "3-player"): placement points [1, 0.5, 0] with shared ties,
violations −0.5 / +1 (the standings engine), ranking by average with tie-breaks A
(``perfect_more_games``) then B (``head_to_head``), the schedule from the design engine with every
table released at once; table rules in ``judge_tables``; the join deadline in ``join_deadline_rulings``.

Rulings where the spec is silent:
- Both registration periods (main and late fill-up) are registration before the start; capacity is
  first come, first served, so a late entry is refused once the event is full. The periods differ only
  in how the organizer invites players, not in any rule Arbiter enforces.
- The 2-player round robin scores win 1 / draw 0.5 / loss 0 with byes worth 0 (an odd group gives every
  entry one bye, which must not be a win). No tie-break chain: ranks below first stay shared, as the
  seed says tie-break values are not used below first place.
- Release (2p): every game of the round robin (both groups) and of the best-of-3 final is out at the
  start (``release: all``); a final decided early voids its games still open as it closes.
- Drops: a dropped player resigns every game still open (``on_drop``): 2p ``resign`` — a forfeit won
  by the opponent; 3p ``violation`` — the seed counts resigning as a violation (−0.5 / +1).
- The 11+ group split is drawn from the event seed (``group_method`` ``random``; ``snake`` by rating
  if the organizer sets it). The threshold (11) is the seed's and not configurable.
- A sole first place up to 10 entries wins without a final; a finalist's withdrawal then changes
  nothing. If withdrawals leave one candidate, that candidate wins without a final.
- Withdrawal from the final is accepted until a game of the final has a result; afterwards a finalist
  who stops playing forfeits games like anyone else. Final registration closes once
  (``POST …/bga/final/deadline``), and only before any game of the final has a result.
- A forfeited final is recorded as forfeited games (the registered finalist at place 1) until the
  final is decided: one game for the one-game final; for the best-of-3, 2 games (one forfeit) or 3
  double forfeits (both), so the series standings and their history say what happened.
- Table rules (3p): a table counts when it was created at or after the start, with the event's
  ``table_settings`` (each a value or a list of allowed values, compared as the site shows them:
  case and spacing aside) and exactly the scheduled players; among such tables the oldest counts and the
  others are surplus. A table the organizer explicitly allows counts whatever its settings (the seed:
  "unless the organizer permits"); when several are valid the oldest counts. A result reported for a
  match whose recorded tables all fail is refused (rule ``bga.table``), unless it is void or
  records violations (a ruling, not a game result).
- Join deadline (3p): closing it rules every still-pending match (no claim filed): a match with absent
  players listed → those players violate; a match with no counted table recorded → its table was not
  created and every player violates; any other pending match is being played and stays open. The
  ruling is stored as a ``forfeit`` with violation flags (violators placed last, the others first), so
  the standings score −0.5 / +1 and ratings skip it (nobody played).
- Table rules are checked when a result is reported (``check_report``); the organizer's correction
  (``PUT``) is a ruling and is not re-checked against them.
- Large 3-player fields: the organizer sets ``groups`` on the stage (e.g. PATCH before the start);
  each group gets its own design (players numbered by the event seed per group), every table of every
  group is released at once (``release: rounds`` would give round k of every group together), and the stage's one standings rank all groups
  together (no playoff). The schedule report lists each group's warnings prefixed "group X: ".
- Deadlines are closed by the organizer (no clock in the core); ``join_deadline`` / ``final_deadline``
  in the settings, when given, make an early close a 409.
- Ratings: a rated game with a violation rates violators below non-violators (the general ratings
  service; the places reported for the game itself are kept in the record).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.core.errors import InvalidInput, Problem

SINGLE_MAX = 10  # up to this many entries: one round robin; from 11: two groups
CANCEL_AT = 2  # this many entries or fewer at start: the event is cancelled
DEFAULT_TABLE_SETTINGS = {
    "variant": "adjusted game",
    "two_player_rule": "classic",
    "speed": "turn-based, 2 moves a day",
}

_FINAL_COMMON: dict[str, Any] = {
    "name": "final",
    "scoring": {"scheme": "wdl", "win": 1, "draw": 0.5, "loss": 0, "bye": 0},
    "tiebreaks": ["tiebreak_value"],
    "release": "all",
    "on_drop": "resign",
}

PRESETS: dict[str, dict[str, Any]] = {
    "bga-round-robin": {
        "stages": [
            {
                "format": "round_robin",
                "table_size": 2,
                "name": "round robin",
                "release": "all",
                "on_drop": "resign",
            },
            {"format": "playoff", "table_size": 2, **_FINAL_COMMON},
        ],
        "scoring": {"scheme": "wdl", "win": 1, "draw": 0.5, "loss": 0, "bye": 0},
        "tiebreaks": [],
        "ranking_basis": "total",
        "capacity": 20,
        "min_entries": 3,
        "sanctioned": False,
        "rated": True,
    },
    "bga-round-robin-3p": {
        "stages": [
            {
                "format": "round_robin",
                "table_size": 3,
                "mode": "complete",
                "release": "all",
                "on_drop": "violation",
                "name": "round robin",
            }
        ],
        "scoring": {"scheme": "placement", "points": [1, 0.5, 0]},
        "violation_points": -0.5,
        "victim_points": 1,
        "ranking_basis": "average",
        "tiebreaks": ["perfect_more_games", "head_to_head"],
        "h2h_default": 0.5,
        "table_settings": dict(DEFAULT_TABLE_SETTINGS),
        "min_entries": 3,
        "sanctioned": False,
        "rated": True,
    },
}

# The settings each preset leaves unset that its new event form offers, blank
# (docs/web.md "The new event form"): the deadline its rules close — the final's registration
# (2 players), the tables' join deadline (3 players) — and a 3-player field's groups (blank: one).
OFFERED: dict[str, dict[str, str]] = {
    "bga-round-robin": {"final_deadline": "datetime"},
    "bga-round-robin-3p": {"join_deadline": "datetime", "stages.0.groups": "int"},
}


# --------------------------------------------------------------------------- 2 players: stages
def plan_stages(entries: int, stages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The 2-player event's stages for this many entries: the round robin (two groups from 11) and
    the final (a one-game playoff up to 10, a best-of-3 unrated series from 11)."""
    if len(stages) < 2:
        return [dict(s) for s in stages]
    rr = dict(stages[0])
    final = {k: v for k, v in stages[1].items() if k not in ("format", "best_of", "advance", "rated")}
    if entries > SINGLE_MAX:
        rr["groups"] = 2
        final.update({"format": "series", "best_of": 3, "rated": False, "advance": {"group_winners": True}})
    else:
        rr.pop("groups", None)
        final.update({"format": "playoff", "best_of": 1})
    return [rr, final, *[dict(s) for s in stages[2:]]]


# --------------------------------------------------------------------------- 2 players: finalists
@dataclass(frozen=True)
class Ranked:
    """One entry's row in the round robin: its rank (within its group when there are groups)."""

    entry_id: str
    rank: int
    tiebreak_value: float | None
    group: str | None = None


@dataclass(frozen=True)
class FinalDecision:
    finalists: list[str]  # empty when no final is needed
    winner: str | None  # set when the event is decided without a final
    reason: str


def _order(rows: Sequence[Ranked]) -> list[Ranked]:
    return sorted(rows, key=lambda r: (r.rank, -(r.tiebreak_value or 0.0), r.entry_id))


def final_decision(
    rows: Sequence[Ranked], withdrawn: Sequence[str] = (), grouped: bool = False
) -> FinalDecision:
    """Who plays the final (bga-round-robin.md "10 or fewer", "11 or more", "Final")."""
    out = set(withdrawn)
    if grouped:
        by_group: dict[str | None, list[Ranked]] = {}
        for r in rows:
            by_group.setdefault(r.group, []).append(r)
        finalists = []
        for g in sorted(by_group, key=lambda g: g or ""):
            pool = [r for r in _order(by_group[g]) if r.entry_id not in out]
            if pool:
                finalists.append(pool[0].entry_id)
        if len(finalists) == 1:
            return FinalDecision([], finalists[0], "only one group has a finalist left")
        return FinalDecision(finalists, None, "the group winners (ties by tie-break value)")
    first = [r for r in rows if r.rank == 1]
    if len(first) == 1:
        return FinalDecision([], first[0].entry_id, "sole first place")
    left = [r.entry_id for r in _order(rows) if r.entry_id not in out]
    if len(left) == 1:
        return FinalDecision([], left[0], "the only candidate left after withdrawals")
    return FinalDecision(
        left[:2], None, f"{len(first)} share first place: the two highest tie-break values play the final"
    )


def deadline_places(finalists: Sequence[str], registered: Sequence[str]) -> list[int] | None:
    """Places of a game forfeited at the final's registration deadline (None: both registered).

    The registered finalist takes place 1; an unregistered one place 2; with nobody registered no
    seat has place 1 (a double forfeit)."""
    reg = set(registered)
    if all(f in reg for f in finalists):
        return None
    return [1 if f in reg else 2 for f in finalists]


# --------------------------------------------------------------------------- 3 players: tables
@dataclass(frozen=True)
class BgaTable:
    """A table created on Board Game Arena for a scheduled match, as the organizer records it."""

    table: str  # BGA's table id
    created_at: datetime
    players: tuple[str, ...]  # entry ids seated at it
    settings: Mapping[str, str] = field(default_factory=dict)
    allowed: bool = False  # the organizer permits it whatever its settings


@dataclass(frozen=True)
class TableVerdict:
    table: str
    counted: bool
    reasons: tuple[str, ...]


def as_shown(value: str) -> str:
    """A table setting as Board Game Arena shows it, compared without regard to case or spacing
    ("Adjusted game", "adjusted  game" and "adjusted game" are one value)."""
    return "".join(value.casefold().split())


def allowed_values(want: str | Sequence[str]) -> tuple[str, ...]:
    """A required setting's allowed values: one value, or a list of them."""
    return (want,) if isinstance(want, str) else tuple(want)


def judge_tables(
    expected: Sequence[str],
    required: Mapping[str, str | Sequence[str]],
    started_at: datetime | None,
    tables: Sequence[BgaTable],
) -> list[TableVerdict]:
    """Which of a match's recorded tables counts (bga-round-robin.md "Table rules"), in input order."""
    problems: dict[str, list[str]] = {}
    for t in tables:
        why: list[str] = []
        if not t.allowed:
            for key, want in sorted(required.items()):
                got = t.settings.get(key)
                allowed = allowed_values(want)
                if got is None or as_shown(got) not in {as_shown(v) for v in allowed}:
                    one_of = " or ".join(repr(v) for v in allowed)
                    shown = "not given" if got is None else f"{got!r}"
                    why.append(f"{key} is {shown}, the event allows {one_of}")
            if sorted(t.players) != sorted(expected):
                why.append("wrong players: the table does not seat exactly this match's players")
            if started_at is not None and t.created_at < started_at:
                why.append("created before the event started")
        problems[t.table] = why
    valid = sorted((t for t in tables if not problems[t.table]), key=lambda t: (t.created_at, t.table))
    counted = valid[0].table if valid else None
    out = []
    for t in tables:
        why = list(problems[t.table])
        if not why and t.table != counted:
            why.append(f"surplus table: the oldest valid table {counted} counts")
        out.append(TableVerdict(t.table, t.table == counted, tuple(why)))
    return out


# --------------------------------------------------------------------------- 3 players: join deadline
@dataclass(frozen=True)
class PendingMatch:
    match_id: str
    entries: tuple[str, ...]  # in seat order
    has_counted_table: bool


@dataclass(frozen=True)
class JoinRuling:
    match_id: str
    violators: tuple[str, ...]
    places: tuple[int, ...]  # in seat order: violators last, the others first
    reason: str


def join_deadline_rulings(
    pending: Sequence[PendingMatch], absent: Mapping[str, Sequence[str]]
) -> list[JoinRuling]:
    """Violations when the join deadline passes (bga-round-robin.md "Deadlines", "Violations").

    ``absent`` names, per pending match, the players who did not join its table. Raises InvalidInput
    for a match that is not pending or a player not at that match."""
    by_id = {m.match_id: m for m in pending}
    problems: list[Problem] = []
    for mid, players in absent.items():
        m = by_id.get(mid)
        if m is None:
            problems.append(Problem(("absent", mid), f"match {mid} is not a pending match of this stage"))
            continue
        if not players:
            problems.append(Problem(("absent", mid), "name at least one absent player"))
        for i, e in enumerate(players):
            if e not in m.entries:
                problems.append(Problem(("absent", mid, i), f"entry {e} is not at match {mid}"))
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    out = []
    n_of = len
    for m in pending:
        if m.match_id in absent:
            bad = set(absent[m.match_id])
            reason = "did not join the table by the join deadline"
        elif not m.has_counted_table:
            bad = set(m.entries)
            reason = "the table was not created by the join deadline"
        else:
            continue
        places = tuple(n_of(m.entries) if e in bad else 1 for e in m.entries)
        out.append(JoinRuling(m.match_id, tuple(e for e in m.entries if e in bad), places, reason))
    return out


def decided_series(winners: Sequence[Sequence[str]], best_of: int) -> str | None:
    """The entry that has won more than half of a best-of-N series, from each counted game's
    first places (a game with no sole winner credits no one); None while it is undecided."""
    wins: dict[str, int] = {}
    for firsts in winners:
        if len(firsts) == 1:
            wins[firsts[0]] = wins.get(firsts[0], 0) + 1
    return next((e for e, w in wins.items() if w >= best_of // 2 + 1), None)
