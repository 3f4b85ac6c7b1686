"""Titan: The Arena at the WBC: the game-log adjudicator, log statistics and the HMW-P event's pure
helpers (titan-arena.md; seed 000; formats.md "Heats"; api.md ``POST /v1/adjudicate/titan-arena``).

The adjudicator ("The in-game tie-break"): scores decide places. Players tied on score are split by
the WBC rule — most points in bets on the last creature to die, then the one before, back to the
first death — then by the original rule (the player who made the last play ranks first) where the
log records it, then by a seeded die. With ``tie_rule: "last_play"`` the original rule comes first
and the dice after it. Every adjacent pair of a tied group gets a record naming what split it.

The event ("HMW-P"): seeding is the heats stage's standings (placement points [1], so points are
wins, then the chain seconds → points behind in seconds → points behind overall → fewest heats →
dice); ``semifinal_field``, ``table_count``, ``snake_deal``, ``final_seats`` and ``final_places``
are the semifinal / final rules of titan-arena.md sections 3–5.

Rulings where the spec is silent:
- A log is ``{variant?, players, scores, deaths, bets, last_play?, tie_rule?, creatures?, seed?}``.
  ``players`` are names, 3–5 of them (the game's seats), distinct. ``scores`` is an object
  ``{player: score}`` naming every player (a name not seated is an error), or a list in
  ``players`` order.
- In a match the log's ``players`` name the match's seats by entry id or by name, in any order;
  ``in_seat_order`` puts them in seat order (a name that is no seat's is an error), and
  ``adjudicate_match`` reads players[0] as seat 0. The dice seed is the service's (event seed +
  match id); a ``seed`` in the log is ignored there.
- ``variant`` is ``titan-the-arena`` (default; also ``original``) or ``colossal-arena`` (also
  ``colossal``). Colossal Arena accepts only the eight creatures in play, in ``creatures``,
  ``deaths`` and ``bets``: the WBC's eight (Amazon, Cyclops, Ettin, Magus, Titan, Troll, Unicorn,
  Wyrm), or in a final under its own rules the eight drawn from its twelve (``final_creatures``).
- The creatures "in the game" are ``creatures`` when the log gives them (every death and bet must
  name one), else the eight in play for Colossal Arena; for the original game without
  ``creatures``, the twelve of the catalog (``creature_catalog``: any other name is refused, so a
  typo never reaches the dice; a log of other creatures lists them). Names match
  case-insensitively and are reported as the game's spelling.
- At most five deaths (``MAX_DEATHS``): the game ends when three of the eight are left alive.
- A creature may die once: a death listed twice is an error. ``killed_by`` and ``last_play``
  must name a player. Scores and bet points are numbers >= 0 (a negative one is refused, in a log
  or in a heat's reported scores: ``negative_scores``); secret bets count like open ones (they are
  revealed at the end). Bets on creatures still alive are not part of the WBC rule.
- Dice: ``rng.stream(seed, "titan-arena:dice:" + "|".join(sorted names))`` shuffles the still-tied
  players; rolls are k..1 in that order. Without a seed the stateless tool uses "titan-arena".
- Statistics per log: kills credited per player (every player listed, 0 when none), and per
  creature the number of bets and their points (secret bets counted apart too).
- Semifinal tables: 16 → 4 tables, 20 → 5, 25 → 5 (the spec's ruling); any other size S (it
  shrinks when too few qualify): 5 tables from 20 up, else ceil(S/5) tables, but at least 3 tables
  from 9 seats up (tables of 3 are then allowed) so the final seats three. Fewer than 3 semifinal
  seats: no semifinal can be played (the heats cannot close). 3–5 seats (one table,
  ``semifinal_needed`` false): no semifinal is played, the qualifiers play the final directly.
- Places never contradict scores (``place_contradictions``): a seat placed ahead of one that scored
  more is an error; equal scores may be placed either way.
- Snake dealing: seed k goes to table k in the first pass (1..T), T..1 in the second, …; table
  sizes follow (the first tables get the extra seats).
- Final seats are the semifinal table winners by seeding; when fewer than 3 tables were played,
  the best other semifinalists (by semifinal place, then seeding) fill the final to 3 seats.
- Every place: final table by its places; then the other semifinalists by semifinal place, then
  seeding; then everyone else who played a heat, by seeding. Entries that played no heat get no
  place.
- Final rules version: ``colossal-arena`` only when every finalist has said yes; a missing answer
  counts as no (the original rules).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Annotated, Any, Literal, Required, get_args

from annotated_types import Ge, Len, MinLen
from typing_extensions import TypedDict

from app.core import rng
from app.core.errors import InvalidInput, Problem
from app.core.games.adjudication import Adjudication, SeatOutcome, record_keys

ORIGINAL = "titan-the-arena"
COLOSSAL = "colossal-arena"
VariantName = Literal["titan-the-arena", "original", "colossal-arena", "colossal"]
VARIANTS = {name: COLOSSAL if name.startswith("colossal") else ORIGINAL for name in get_args(VariantName)}
TieRule = Literal["wbc", "last_play"]
TIE_RULES: tuple[str, ...] = get_args(TieRule)
MIN_PLAYERS, MAX_PLAYERS = 3, 5
# The game ends when three creatures are left alive: of the eight, at most five die.
CREATURES_IN_GAME, ALIVE_AT_END = 8, 3
MAX_DEATHS = CREATURES_IN_GAME - ALIVE_AT_END
DEFAULT_SEED = "titan-arena"

Loc = tuple[str | int, ...]


# --- the creatures -----------------------------------------------------------------------------
@dataclass(frozen=True)
class CreatureCatalog:
    """Colossal Arena's twelve creatures and the WBC's eight, as shipped in
    ``data/colossal_arena_creatures.json`` with the source of each list."""

    creatures: tuple[str, ...]
    wbc_eight: tuple[str, ...]
    source: Mapping[str, str]


@lru_cache(maxsize=1)
def creature_catalog() -> CreatureCatalog:
    text = resources.files("app.core.games").joinpath("data/colossal_arena_creatures.json").read_text("utf-8")
    raw = json.loads(text)
    return CreatureCatalog(tuple(raw["creatures"]), tuple(raw["wbc_eight"]), dict(raw["source"]))


COLOSSAL_CREATURES = creature_catalog().wbc_eight
FINAL_CREATURES = 8


def final_creatures(seed: str) -> tuple[str, ...]:
    """The eight creatures of a final played under Colossal Arena's own rules: drawn from the twelve
    with the event seed (stream ``titan-arena:final:creatures``), listed in the catalog's order."""
    twelve = creature_catalog().creatures
    drawn = set(rng.stream(seed, "titan-arena:final:creatures").sample(list(twelve), FINAL_CREATURES))
    return tuple(c for c in twelve if c in drawn)


# --- the log -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Death:
    creature: str
    killed_by: str | None = None


@dataclass(frozen=True)
class Bet:
    player: str
    creature: str
    points: float
    secret: bool = False


@dataclass(frozen=True)
class GameLog:
    variant: str
    players: tuple[str, ...]
    scores: dict[str, float]
    deaths: tuple[Death, ...]
    bets: tuple[Bet, ...]
    last_play: str | None = None
    tie_rule: str = "wbc"
    creatures: tuple[str, ...] | None = None


# The log's shape (the parser reads these keys and no others; the OpenAPI document's schema of a
# Titan: The Arena ``game_log``). A name is a non-empty text; names are checked against the game.
Name = Annotated[str, MinLen(1)]


class TitanArenaDeath(TypedDict, total=False, closed=True):
    """A creature's death, in the order the creatures died."""

    creature: Required[Name]
    killed_by: Name | None


class TitanArenaBet(TypedDict, total=False, closed=True):
    player: Required[Name]
    creature: Required[Name]
    points: Required[Annotated[float, Ge(0)]]
    secret: bool


class TitanArenaLog(TypedDict, total=False, closed=True):
    """A Titan: The Arena game log: the players, their scores, the deaths and the bets."""

    variant: VariantName | None
    players: Required[Annotated[list[Name], Len(MIN_PLAYERS, MAX_PLAYERS)]]
    scores: Required[dict[str, float] | list[float]]
    deaths: list[TitanArenaDeath]
    bets: list[TitanArenaBet]
    last_play: Name | None
    tie_rule: TieRule | None
    creatures: Annotated[list[Name], MinLen(1)] | None
    seed: str | None


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _name(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


class _LogReader:
    """One pass over a raw log, collecting every problem (locs under ``prefix``)."""

    def __init__(
        self, data: Mapping[str, Any], prefix: Loc, colossal_creatures: Sequence[str] | None
    ) -> None:
        self.data = data
        self.prefix = prefix
        self.problems: list[Problem] = []
        self.players: list[str] = []
        self.seated: set[str] = set()
        self.in_play = tuple(colossal_creatures) if colossal_creatures is not None else COLOSSAL_CREATURES
        self.drawn = colossal_creatures is not None
        self.variant = ORIGINAL
        self.allowed: dict[str, str] = {}
        self.listed_any = False

    def bad(self, loc: Loc, msg: str) -> None:
        self.problems.append(Problem((*self.prefix, *loc), msg))

    def unknown_keys(self, raw: Mapping[str, Any], known: frozenset[str] | set[str], loc: Loc) -> None:
        for k in raw:
            if k not in known:
                self.bad((*loc, k), f"unknown key {k!r}")

    def read_variant(self) -> str:
        raw_variant = self.data.get("variant") or ORIGINAL
        variant = VARIANTS.get(raw_variant) if isinstance(raw_variant, str) else None
        if variant is None:
            self.bad(("variant",), f"unknown variant {raw_variant!r}; one of {ORIGINAL}, {COLOSSAL}")
            variant = ORIGINAL
        self.variant = variant
        return variant

    def read_tie_rule(self) -> str:
        tie_rule = self.data.get("tie_rule") or "wbc"
        if tie_rule not in TIE_RULES:
            self.bad(("tie_rule",), f"must be one of {', '.join(TIE_RULES)}")
            tie_rule = "wbc"
        return str(tie_rule)

    def read_players(self) -> None:
        raw_players = self.data.get("players")
        if not isinstance(raw_players, list):
            self.bad(("players",), "must be a list of player names")
            return
        for i, p in enumerate(raw_players):
            n = _name(p)
            if n is None:
                self.bad(("players", i), "must be a non-empty name")
            elif n in self.players:
                self.bad(("players", i), f"player {n!r} is listed twice")
            else:
                self.players.append(n)
        if not MIN_PLAYERS <= len(raw_players) <= MAX_PLAYERS:
            self.bad(
                ("players",),
                f"Titan: The Arena seats {MIN_PLAYERS}–{MAX_PLAYERS} players, not {len(raw_players)}",
            )
        self.seated = set(self.players)

    def read_creatures(self) -> tuple[str, ...] | None:
        """The creatures of the game: the log's list (within the eight in play for Colossal Arena),
        else the eight in play, else (the original game) the creatures Arbiter knows."""
        colossal = self.variant == COLOSSAL
        self.allowed = {c.casefold(): c for c in (self.in_play if colossal else creature_catalog().creatures)}
        raw_creatures = self.data.get("creatures")
        if raw_creatures is None:
            return None
        if not isinstance(raw_creatures, list) or not raw_creatures:
            self.bad(("creatures",), "must be a non-empty list of creature names")
            return None
        listed: dict[str, str] = {}
        for i, c in enumerate(raw_creatures):
            n = _name(c)
            if n is None:
                self.bad(("creatures", i), "must be a non-empty name")
            elif colossal and n.casefold() not in self.allowed:
                self.bad(("creatures", i), _not_colossal(n, self.in_play, self.drawn))
            elif n.casefold() in listed:
                self.bad(("creatures", i), f"creature {n!r} is listed twice")
            else:
                listed[n.casefold()] = self.allowed.get(n.casefold(), n)
        self.allowed = listed
        self.listed_any = True
        return tuple(listed.values())

    def creature(self, v: Any, loc: Loc) -> str | None:
        n = _name(v)
        if n is None:
            self.bad(loc, "must name a creature")
            return None
        if n.casefold() in self.allowed:
            return self.allowed[n.casefold()]
        names = ", ".join(self.allowed.values())
        if self.variant == COLOSSAL and n.casefold() not in {c.casefold() for c in self.in_play}:
            self.bad(loc, _not_colossal(n, self.in_play, self.drawn))
        elif self.listed_any:
            self.bad(loc, f"creature {n!r} is not in this game ({names})")
        else:
            self.bad(
                loc,
                f"creature {n!r} is not a creature of the game ({names}); "
                "a log of other creatures lists them in 'creatures'",
            )
        return None

    def player(self, v: Any, loc: Loc, what: str) -> str | None:
        n = _name(v)
        if n is None:
            self.bad(loc, f"{what} must name a player")
            return None
        if self.players and n not in self.seated:
            self.bad(loc, f"{what} {n!r} is not a player of this game ({', '.join(self.players)})")
            return None
        return n

    def score(self, s: Any, loc: Loc) -> float | None:
        if not _is_num(s):
            self.bad(loc, "must be a number")
            return None
        if s < 0:
            self.bad(loc, "must be at least 0 (a score is never negative)")
            return None
        return float(s)

    def read_scores(self) -> dict[str, float]:
        scores: dict[str, float] = {}
        raw_scores = self.data.get("scores")
        players = self.players
        if isinstance(raw_scores, list):
            if len(raw_scores) != len(players):
                self.bad(
                    ("scores",),
                    f"a list of scores must give one per player ({len(players)}), in players order",
                )
            for i, s in enumerate(raw_scores):
                value = self.score(s, ("scores", i))
                if value is not None and i < len(players):
                    scores[players[i]] = value
        elif isinstance(raw_scores, Mapping):
            for k, s in raw_scores.items():
                if k not in self.seated:
                    self.bad(("scores", k), f"a score for {k!r}, who is not a player of this game")
                    continue
                value = self.score(s, ("scores", k))
                if value is not None:
                    scores[k] = value
            missing = [p for p in players if p not in raw_scores]
            if missing:
                self.bad(("scores",), f"no score for {', '.join(missing)}")
        else:
            self.bad(("scores",), "must be an object {player: score} (or a list in players order)")
        return scores

    def read_deaths(self) -> tuple[Death, ...]:
        deaths: list[Death] = []
        raw_deaths = self.data.get("deaths", [])
        if not isinstance(raw_deaths, list):
            self.bad(("deaths",), "must be a list of {creature, killed_by?} in the order the creatures died")
            return ()
        if len(raw_deaths) > MAX_DEATHS:
            self.bad(
                ("deaths",),
                f"at most {MAX_DEATHS} creatures die: the game ends when {ALIVE_AT_END} are left alive "
                f"({len(raw_deaths)} deaths listed)",
            )
        dead: set[str] = set()
        for i, d in enumerate(raw_deaths):
            if not isinstance(d, Mapping):
                self.bad(("deaths", i), "must be an object {creature, killed_by?}")
                continue
            self.unknown_keys(d, record_keys(TitanArenaDeath), ("deaths", i))
            c = self.creature(d.get("creature"), ("deaths", i, "creature"))
            killer = None
            if d.get("killed_by") is not None:
                killer = self.player(d.get("killed_by"), ("deaths", i, "killed_by"), "killed_by")
            if c is None:
                continue
            if c in dead:
                self.bad(("deaths", i, "creature"), f"the {c} is listed as dying twice")
                continue
            dead.add(c)
            deaths.append(Death(c, killer))
        return tuple(deaths)

    def bet(self, i: int, b: Any) -> Bet | None:
        if not isinstance(b, Mapping):
            self.bad(("bets", i), "must be an object {player, creature, points, secret?}")
            return None
        self.unknown_keys(b, record_keys(TitanArenaBet), ("bets", i))
        who = self.player(b.get("player"), ("bets", i, "player"), "the bettor")
        c = self.creature(b.get("creature"), ("bets", i, "creature"))
        pts = b.get("points")
        points = float(pts) if isinstance(pts, int | float) and _is_num(pts) else -1.0
        ok_pts = points >= 0
        if not ok_pts:
            self.bad(("bets", i, "points"), "must be a number >= 0")
        secret = b.get("secret", False)
        if not isinstance(secret, bool):
            self.bad(("bets", i, "secret"), "must be true or false")
        if who is not None and c is not None and ok_pts:
            return Bet(who, c, points, bool(secret))
        return None

    def read_bets(self) -> tuple[Bet, ...]:
        raw_bets = self.data.get("bets", [])
        if not isinstance(raw_bets, list):
            self.bad(("bets",), "must be a list of {player, creature, points, secret?}")
            return ()
        bets = (self.bet(i, b) for i, b in enumerate(raw_bets))
        return tuple(b for b in bets if b is not None)


def parse_log(data: Any, prefix: Loc = (), colossal_creatures: Sequence[str] | None = None) -> GameLog:
    """Check a log and return it; raise InvalidInput listing every problem (locs under ``prefix``).

    ``colossal_creatures`` are the creatures a ``colossal-arena`` log may name (default the WBC's
    eight; a final under Colossal Arena's own rules passes the eight drawn for it)."""
    if not isinstance(data, Mapping):
        raise InvalidInput("the game log must be an object", [Problem(prefix, "must be an object")])
    reader = _LogReader(data, prefix, colossal_creatures)
    reader.unknown_keys(data, record_keys(TitanArenaLog), ())
    variant = reader.read_variant()
    tie_rule = reader.read_tie_rule()
    reader.read_players()
    creatures = reader.read_creatures()
    scores = reader.read_scores()
    deaths = reader.read_deaths()
    bets = reader.read_bets()
    last_play = None
    if data.get("last_play") is not None:
        last_play = reader.player(data.get("last_play"), ("last_play",), "last_play")
    if reader.problems:
        raise InvalidInput(reader.problems[0].msg, reader.problems)
    return GameLog(variant, tuple(reader.players), scores, deaths, bets, last_play, tie_rule, creatures)


def _not_colossal(name: str, in_play: Sequence[str], drawn: bool) -> str:
    which = "the eight drawn for this Colossal Arena final" if drawn else "Colossal Arena's eight"
    return f"creature {name!r} is not one of {which} ({', '.join(in_play)})"


def in_seat_order(game_log: Any, seats: Sequence[tuple[str, str]]) -> Any:
    """The log with its ``players`` (and a list of ``scores``) in the match's seat order.

    ``seats`` are the match's (entry id, name), seat 0 first. A log names each player by entry id
    or by name, in any order; a label that is no seat's, or a seat named twice, is refused (422)
    naming it. A log whose players cannot be read is returned as it is, for ``parse_log`` to judge.
    """
    if not isinstance(game_log, Mapping) or not isinstance(game_log.get("players"), list):
        return game_log
    labels = game_log["players"]
    by_id = {e: i for i, (e, _) in enumerate(seats)}
    by_name: dict[str, list[int]] = {}
    for i, (_, name) in enumerate(seats):
        by_name.setdefault(name.strip().casefold(), []).append(i)
    seated = ", ".join(f"{name} ({e})" for e, name in seats)
    problems: list[Problem] = []
    seat_of: list[int | None] = []
    taken: dict[int, int] = {}
    for i, label in enumerate(labels):
        loc: Loc = ("game_log", "players", i)
        n = _name(label)
        found: int | None = None
        if n is None:
            pass  # parse_log names the problem
        elif n in by_id:
            found = by_id[n]
        elif len(by_name.get(n.casefold(), [])) == 1:
            found = by_name[n.casefold()][0]
        elif n.casefold() in by_name:
            problems.append(Problem(loc, f"two seats are named {n!r}: name them by entry id ({seated})"))
        else:
            problems.append(Problem(loc, f"{n!r} is not seated at this match; the seats are {seated}"))
        if found is not None and found in taken:
            problems.append(Problem(loc, f"{n!r} names seat {found} again (as players[{taken[found]}] does)"))
            found = None
        if found is not None:
            taken[found] = i
        seat_of.append(found)
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    if len(labels) != len(seats) or None in seat_of:
        return game_log  # a count the adjudicator refuses, or a label parse_log refuses
    order = sorted(range(len(labels)), key=lambda i: seat_of[i] or 0)
    out = dict(game_log)
    out["players"] = [labels[i] for i in order]
    if isinstance(game_log.get("scores"), list) and len(game_log["scores"]) == len(labels):
        out["scores"] = [game_log["scores"][i] for i in order]
    return out


# --- the verdict -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TieBreak:
    """``order[0]`` ranks above ``order[1]``, both of the tied group ``players``, by ``decided_by``:
    a creature's name (``rule`` "bets"), "last_play" or "dice"; ``values`` are what was compared."""

    players: tuple[str, ...]
    order: tuple[str, str]
    score: float
    rule: str
    decided_by: str
    values: dict[str, float]

    def as_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "order": list(self.order),
            "score": self.score,
            "rule": self.rule,
            "decided_by": self.decided_by,
            "values": self.values,
        }


@dataclass(frozen=True)
class Statistics:
    kills: dict[str, int]
    bets: dict[str, dict[str, float]]

    def as_dict(self) -> dict[str, Any]:
        return {"kills": dict(self.kills), "bets": {c: dict(v) for c, v in self.bets.items()}}


@dataclass(frozen=True)
class Verdict:
    variant: str
    tie_rule: str
    places: list[tuple[str, int, float]]  # (player, place, score), best first
    tiebreaks: list[TieBreak]
    statistics: Statistics
    deaths: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "tie_rule": self.tie_rule,
            "places": [{"player": p, "place": pl, "score": s} for p, pl, s in self.places],
            "tiebreaks": [t.as_dict() for t in self.tiebreaks],
            "statistics": self.statistics.as_dict(),
            "deaths": list(self.deaths),
        }


def statistics(log: GameLog) -> Statistics:
    kills = {p: 0 for p in log.players}
    for d in log.deaths:
        if d.killed_by is not None:
            kills[d.killed_by] += 1
    bets: dict[str, dict[str, float]] = {}
    for b in log.bets:
        row = bets.setdefault(b.creature, {"bets": 0, "points": 0.0, "secret": 0})
        row["bets"] += 1
        row["points"] += b.points
        row["secret"] += 1 if b.secret else 0
    return Statistics(kills, dict(sorted(bets.items())))


def _levels(log: GameLog) -> list[tuple[str, str]]:
    """The tie-break levels in order: ("bets", creature) …, ("last_play", …); dice come last."""
    bets = [("bets", d.creature) for d in reversed(log.deaths)]
    last = [("last_play", "last_play")] if log.last_play is not None else []
    return bets + last if log.tie_rule == "wbc" else last


def _value(log: GameLog, level: tuple[str, str], player: str) -> float:
    kind, what = level
    if kind == "bets":
        return sum((b.points for b in log.bets if b.player == player and b.creature == what), 0.0)
    return 1.0 if player == log.last_play else 0.0


def _split(
    log: GameLog,
    group: list[str],
    level: int,
    seed: str,
    tied: tuple[str, ...],
    score: float,
    out: list[TieBreak],
) -> list[str]:
    """Order a still-tied group from ``level`` on; record each boundary it makes."""
    if len(group) == 1:
        return group
    levels = _levels(log)
    if level >= len(levels):
        ids = sorted(group)
        order = list(ids)
        rng.stream(seed, "titan-arena:dice:" + "|".join(ids)).shuffle(order)
        rolls = {p: float(len(order) - i) for i, p in enumerate(order)}
        for a, b in zip(order, order[1:], strict=False):
            out.append(TieBreak(tied, (a, b), score, "dice", "dice", {a: rolls[a], b: rolls[b]}))
        return order
    lv = levels[level]
    values = {p: _value(log, lv, p) for p in group}
    distinct = sorted(set(values.values()), reverse=True)
    parts = [[p for p in group if values[p] == v] for v in distinct]
    ordered = [_split(log, part, level + 1, seed, tied, score, out) for part in parts]
    rule, name = lv if lv[0] == "bets" else ("last_play", "last_play")
    for upper, lower in zip(ordered, ordered[1:], strict=False):
        a, b = upper[-1], lower[0]
        out.append(TieBreak(tied, (a, b), score, rule, name, {a: values[a], b: values[b]}))
    return [p for part in ordered for p in part]


def adjudicate(log: GameLog, seed: str = DEFAULT_SEED) -> Verdict:
    """Places 1..n (every tie broken) with the record of every broken tie."""
    by_score = sorted(set(log.scores.values()), reverse=True)
    order: list[str] = []
    records: list[TieBreak] = []
    for s in by_score:
        group = [p for p in log.players if log.scores[p] == s]
        found: list[TieBreak] = []
        order.extend(_split(log, group, 0, seed, tuple(group), s, found))
        # boundaries in the order they appear in the final ranking
        pos = {p: i for i, p in enumerate(order)}
        records.extend(sorted(found, key=lambda t: pos[t.order[0]]))
    places = [(p, i + 1, log.scores[p]) for i, p in enumerate(order)]
    return Verdict(
        log.variant, log.tie_rule, places, records, statistics(log), [d.creature for d in log.deaths]
    )


def adjudicate_log(data: Any, seed: str | None = None) -> Verdict:
    """The stateless tool: parse, then adjudicate with ``seed`` (else the log's, else the default)."""
    log = parse_log(data)
    chosen = seed or (data.get("seed") if isinstance(data.get("seed"), str) and data.get("seed") else None)
    return adjudicate(log, chosen or DEFAULT_SEED)


def adjudicate_match(
    game_log: dict[str, Any], seats: int, seed: str, colossal_creatures: Sequence[str] | None = None
) -> Adjudication:
    """The registry seam: the log's players are the match's seats in seat order (the service puts
    them in that order first, ``in_seat_order``)."""
    log = parse_log(game_log, ("game_log",), colossal_creatures)
    if len(log.players) != seats:
        raise InvalidInput(
            f"the log lists {len(log.players)} players but the match has {seats} seats",
            [Problem(("game_log", "players"), f"list the {seats} seated players, in seat order")],
        )
    verdict = adjudicate(log, seed)
    place_of = {p: pl for p, pl, _ in verdict.places}
    return Adjudication(
        outcome="played",
        seats=[
            SeatOutcome(seat=i, place=place_of[p], score=log.scores[p]) for i, p in enumerate(log.players)
        ],
        details=verdict.as_dict(),
    )


# --- the HMW-P event ---------------------------------------------------------------------------
SEMIFINAL_SIZES = (16, 20, 25)
FINAL_MIN = 3


@dataclass(frozen=True)
class SemifinalField:
    seats: list[str]  # in seed order: winners first, then alternates
    winners: list[str]
    alternates: list[str]
    size: int  # the target 16 / 20 / 25 before shrinking


def semifinal_field(seeding: Sequence[str], winners: set[str], seconds: set[str]) -> SemifinalField:
    """Section 3: the smallest of 16/20/25 holding every winner (25 at most), winners first by
    seeding, then alternates (no win, at least one second) by seeding; shrinks when too few qualify."""
    won = [e for e in seeding if e in winners]
    target = next((s for s in SEMIFINAL_SIZES if s >= len(won)), SEMIFINAL_SIZES[-1])
    taken = won[:target]
    alternates = [e for e in seeding if e not in winners and e in seconds][: target - len(taken)]
    return SemifinalField(taken + alternates, taken, alternates, target)


def table_count(seats: int) -> int:
    """How many semifinal tables ``seats`` entries fill (the spec's ruling and this module's)."""
    if seats < FINAL_MIN:
        return 0
    if seats >= 20:
        return 5
    count = math.ceil(seats / 5)
    return max(count, 3) if seats >= 9 else count


def semifinal_needed(seats: int) -> bool:
    """A semifinal is played when its seats fill two tables or more; fewer qualifiers play the final
    directly (never the same table twice)."""
    return table_count(seats) >= 2


def place_contradictions(seats: Sequence[tuple[int | None, float | None]]) -> list[tuple[int, int]]:
    """(i, j) for every seat i placed ahead of a seat j that scored more: the places contradict the
    scores (equal scores may be split either way, by the tie-break). Seats without both are skipped."""
    out: list[tuple[int, int]] = []
    for i, (pi, si) in enumerate(seats):
        for j, (pj, sj) in enumerate(seats):
            if None not in (pi, si, pj, sj) and pi < pj and si < sj:  # type: ignore[operator]
                out.append((i, j))
    return out


def negative_scores(scores: Sequence[float | None]) -> list[int]:
    """The seats reported with a negative score: a Titan: The Arena score (victory points) is a whole
    number of at least 0, so such a report is refused, never stored or counted in points behind."""
    return [i for i, s in enumerate(scores) if s is not None and s < 0]


def snake_deal(seeded: Sequence[str], tables: int) -> list[list[str]]:
    """Seeds 1..T to tables 1..T, then T..1, and so on."""
    out: list[list[str]] = [[] for _ in range(tables)]
    for i, e in enumerate(seeded):
        row, col = divmod(i, tables)
        out[col if row % 2 == 0 else tables - 1 - col].append(e)
    return out


def final_seats(
    tables: Sequence[Sequence[tuple[str, int | None]]], seed_rank: Mapping[str, int]
) -> list[str]:
    """Section 4: each semifinal table's winner (place 1; the best seed if a table shares it),
    by seeding; filled to 3 seats with the best other semifinalists when fewer tables played."""
    far = len(seed_rank) + 1
    winners: list[str] = []
    others: list[tuple[int, int, str]] = []
    for table in tables:
        ranked = sorted(table, key=lambda t: (t[1] or 99, seed_rank.get(t[0], far)))
        if not ranked:
            continue
        winners.append(ranked[0][0])
        others.extend((t[1] or 99, seed_rank.get(t[0], far), t[0]) for t in ranked[1:])
    chosen = sorted(winners, key=lambda e: seed_rank.get(e, far))
    for _, _, e in sorted(others):
        if len(chosen) >= FINAL_MIN:
            break
        chosen.append(e)
    return chosen


def final_places(
    final: Sequence[tuple[str, int | None]],
    semifinal: Sequence[tuple[str, int | None]],
    seeding: Sequence[str],
) -> list[tuple[str, int, str]]:
    """Section 4 "every place": (entry, place, how) — final table by its places, then the other
    semifinalists by semifinal place then seeding, then the rest of ``seeding``."""
    rank = {e: i for i, e in enumerate(seeding)}
    far = len(rank) + 1
    out: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    for e, _ in sorted(final, key=lambda t: (t[1] or 99, rank.get(t[0], far))):
        out.append((e, len(out) + 1, "final"))
        seen.add(e)
    for e, _ in sorted(semifinal, key=lambda t: (t[1] or 99, rank.get(t[0], far))):
        if e not in seen:
            out.append((e, len(out) + 1, "semifinal"))
            seen.add(e)
    for e in seeding:
        if e not in seen:
            out.append((e, len(out) + 1, "seeding"))
            seen.add(e)
    return out


def final_version(finalists: Sequence[str], choices: Mapping[str, bool]) -> str:
    """Section 5: Colossal Arena rules only when every finalist opted in."""
    if finalists and all(choices.get(e) is True for e in finalists):
        return COLOSSAL
    return ORIGINAL


SEEDING_CHAIN = ["seconds", "points_behind_in_seconds", "points_behind_all", "fewest_games", "dice"]
WINS_ONLY = {"scheme": "placement", "points": [1]}

# The catalog's games (migration 0002) the preset sets up events of: the game and its 2004 edition.
CATALOG_GAMES = (ORIGINAL, COLOSSAL)

PRESETS: dict[str, dict[str, Any]] = {
    "wbc-hmwp": {
        "stages": [
            {
                "format": "heats",
                "name": "Heats",
                "late_entries": True,
                "scoring": WINS_ONLY,
                "tiebreaks": SEEDING_CHAIN,
            },
            {"format": "free_for_all", "name": "Semifinal", "scoring": WINS_ONLY, "tiebreaks": []},
            {"format": "free_for_all", "name": "Final", "scoring": WINS_ONLY, "tiebreaks": []},
        ],
        "scoring": WINS_ONLY,
        "tiebreaks": SEEDING_CHAIN,
        "late_entries": True,
        "min_entries": 3,
        "sanctioned": False,
        "rated": False,
    }
}
