"""Tie-break criteria, one small function each, in a registry (formats.md "Tie-break criteria";
titan-arena.md "Seeding"; bga-round-robin.md "Ranking" A and B).

Every criterion maps a group of entries to a value per entry (``None`` = N/A) and states its
direction. Most values depend only on the entry (they are computed once for everybody); two depend on
the group still tied when the criterion is reached: ``head_to_head`` and ``dice``.

Rulings where the spec is silent:
- N/A (``None``) ranks below every real value, whatever the direction, and equal to other N/As —
  never "0 = best". So an entry with no 2nd places ranks below one that has some on
  ``points_behind_in_seconds`` (it is only reached when ``seconds`` counts are equal, so in practice
  N/A meets N/A and they stay tied).
- "Games" are counted games: not voids, not byes. Forfeits count (as a win or a loss).
- ``wins``: sole first place in a played game, a forfeit won, or a violation suffered (the victim);
  a shared first place is a draw, a bye is not a win.
- ``seconds``, ``points_behind_*`` read the recorded places and scores of ``played`` games only
  (not draws, timeouts, forfeits, byes or voids); a game missing a needed score adds nothing.
  "Winner's score" is the highest score among the seats placed 1st. An entry with no such game is N/A.
- ``perfect_more_games``: value = games played if the entry won every one of them (at least one),
  else N/A.
- ``head_to_head``: the seat's event points (violations included); draws are games like any other.
  The value is recorded where the criterion was applied; an entry never reached gets ``None``.
- ``buchholz``: sum over the entry's games of every opponent's total points (an N-seat table counts
  every other seat); byes add nothing; no games = 0. ``median_buchholz``: the same with the highest
  and the lowest per-game contribution dropped when there are at least 3 games.
- ``sonneborn_berger``: sum over games and opponents of (1 if the entry finished ahead of that
  opponent, ½ if level, 0 if behind) × the opponent's total points — the classic 2-seat rule,
  generalized pairwise.
- ``opponent_win_pct``: mean over the entry's opponents (once per meeting) of their wins / games
  played, without a floor; an entry without opponents is N/A.
- ``dice``: when a tied group reaches it, its members get a random order from
  ``rng.stream(seed, "standings:dice:" + "|".join(sorted ids))`` recorded as rolls 1..k (higher is
  better, no repeats, so dice always separates). Entries never in a dice tie get ``None``.
- ``tiebreak_value``: the entry's drawn value; missing = N/A.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core import rng
from app.core.errors import InvalidInput, Problem
from app.core.scoring import ScoredGame

Value = float | None


@dataclass
class EntryStats:
    """Everything the criteria need about one entry, aggregated once."""

    entry_id: str
    tiebreak_value: float | None = None
    points: float = 0.0
    bye_points: float = 0.0
    games: int = 0
    byes: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    differential: float = 0.0
    seconds: int = 0
    behind_seconds: float | None = None
    behind_all: float | None = None
    # for every counted game, in canonical order: (the other entries at the table, own event points)
    meetings: list[tuple[tuple[str, ...], float]] = field(default_factory=list)

    @property
    def average(self) -> float | None:
        """Points per game played; byes (and their points) are left out."""
        if self.games == 0:
            return None
        return (self.points - self.bye_points) / self.games


@dataclass
class Ledger:
    """The aggregated event: per-entry stats and the counted games (no voids, no byes)."""

    stats: dict[str, EntryStats]
    games: list[ScoredGame]
    h2h_default: float = 0.5
    seed: str = ""
    cache: dict[str, Any] = field(default_factory=dict)


GroupFn = Callable[[Ledger, Sequence[str]], dict[str, Value]]


@dataclass(frozen=True)
class Criterion:
    name: str
    higher_is_better: bool
    group_dependent: bool
    fn: GroupFn
    summary: str

    def sort_key(self, value: Value) -> tuple[int, float]:
        """Ascending key: better first, N/A after every real value."""
        if value is None:
            return (1, 0.0)
        v = round(float(value), 9) + 0.0
        return (0, -v if self.higher_is_better else v)


# --------------------------------------------------------------------------- criteria


def wins(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    return {e: ledger.stats[e].wins for e in group}


def seconds(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    return {e: ledger.stats[e].seconds for e in group}


def points_behind_in_seconds(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    return {e: ledger.stats[e].behind_seconds for e in group}


def points_behind_all(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    return {e: ledger.stats[e].behind_all for e in group}


def fewest_games(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    return {e: ledger.stats[e].games for e in group}


def perfect_more_games(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    out: dict[str, Value] = {}
    for e in group:
        s = ledger.stats[e]
        out[e] = s.games if s.games > 0 and s.wins == s.games else None
    return out


def head_to_head(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    members = set(group)
    out: dict[str, Value] = {}
    for e in group:
        total = 0.0
        count = 0
        for others, points in ledger.stats[e].meetings:
            if len(others) == 1:
                if others[0] in members:
                    total += points
                    count += 1
            else:
                n = len(members.intersection(others))  # a game counts once per other tied entry
                total += n * points
                count += n
        out[e] = total / count if count else ledger.h2h_default
    return out


def differential(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    return {e: ledger.stats[e].differential for e in group}


def _opponent_points(ledger: Ledger) -> dict[str, list[float]]:
    """Per entry, per counted game: the sum of the opponents' total points (computed once)."""
    cached = ledger.cache.get("opponent_points")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    stats = ledger.stats
    out: dict[str, list[float]] = {e: [] for e in stats}
    points = {e: s.points for e, s in stats.items()}
    for g in ledger.games:
        entries = g.entries
        if len(entries) == 2:
            a, b = entries
            out[a].append(points[b])
            out[b].append(points[a])
            continue
        totals = [points[e] for e in entries]
        table = sum(totals)
        for e, t in zip(entries, totals, strict=True):
            out[e].append(table - t)
    ledger.cache["opponent_points"] = out
    return out


def buchholz(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    per_game = _opponent_points(ledger)
    return {e: sum(per_game[e]) for e in group}


def median_buchholz(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    per_game = _opponent_points(ledger)
    out: dict[str, Value] = {}
    for e in group:
        values = per_game[e]
        out[e] = sum(values) - max(values) - min(values) if len(values) >= 3 else sum(values)
    return out


def _sonneborn_berger_all(ledger: Ledger) -> dict[str, float]:
    stats = ledger.stats
    points = {e: s.points for e, s in stats.items()}
    acc = dict.fromkeys(stats, 0.0)
    for g in ledger.games:
        entries = g.entries
        orders = g.orders
        if len(entries) == 2:
            a, b = entries
            if orders[0] < orders[1]:
                acc[a] += points[b]
            elif orders[0] > orders[1]:
                acc[b] += points[a]
            else:
                acc[a] += 0.5 * points[b]
                acc[b] += 0.5 * points[a]
            continue
        for i, e in enumerate(entries):
            mine = orders[i]
            for j, o in enumerate(entries):
                if j != i:
                    if mine < orders[j]:
                        acc[e] += points[o]
                    elif mine == orders[j]:
                        acc[e] += 0.5 * points[o]
    return acc


def sonneborn_berger(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    everyone = ledger.cache.get("sonneborn_berger")
    if everyone is None:
        everyone = ledger.cache["sonneborn_berger"] = _sonneborn_berger_all(ledger)
    return {e: everyone[e] for e in group}


def _opponent_win_pct_all(ledger: Ledger) -> dict[str, float | None]:
    stats = ledger.stats
    ratio = {e: s.wins / s.games if s.games else 0.0 for e, s in stats.items()}
    total = dict.fromkeys(stats, 0.0)
    count = dict.fromkeys(stats, 0)
    for g in ledger.games:
        entries = g.entries
        if len(entries) == 2:
            a, b = entries
            total[a] += ratio[b]
            total[b] += ratio[a]
            count[a] += 1
            count[b] += 1
            continue
        table = sum(ratio[e] for e in entries)
        for e in entries:
            total[e] += table - ratio[e]
            count[e] += len(entries) - 1
    return {e: total[e] / count[e] if count[e] else None for e in stats}


def opponent_win_pct(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    everyone = ledger.cache.get("opponent_win_pct")
    if everyone is None:
        everyone = ledger.cache["opponent_win_pct"] = _opponent_win_pct_all(ledger)
    return {e: everyone[e] for e in group}


def tiebreak_value(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    return {e: ledger.stats[e].tiebreak_value for e in group}


def dice(ledger: Ledger, group: Sequence[str]) -> dict[str, Value]:
    ids = sorted(group)
    stream = rng.stream(ledger.seed, "standings:dice:" + "|".join(ids))
    rolls = list(range(1, len(ids) + 1))
    stream.shuffle(rolls)
    return {e: float(r) for e, r in zip(ids, rolls, strict=True)}


CRITERIA: dict[str, Criterion] = {
    c.name: c
    for c in (
        Criterion("wins", True, False, wins, "more games won"),
        Criterion("seconds", True, False, seconds, "more second places"),
        Criterion(
            "points_behind_in_seconds",
            False,
            False,
            points_behind_in_seconds,
            "fewer points behind the winner, summed over second places; no second place = N/A",
        ),
        Criterion(
            "points_behind_all",
            False,
            False,
            points_behind_all,
            "fewer points behind the winner, summed over every game played (a win adds 0); none = N/A",
        ),
        Criterion("fewest_games", False, False, fewest_games, "fewer games played"),
        Criterion(
            "perfect_more_games",
            True,
            False,
            perfect_more_games,
            "among entries that won every game they played, more games; others N/A",
        ),
        Criterion(
            "head_to_head",
            True,
            True,
            head_to_head,
            "mean event points in games among the entries still tied, a game counted once per other "
            "tied entry at its table; none = h2h_default",
        ),
        Criterion("differential", True, False, differential, "higher total differential"),
        Criterion("buchholz", True, False, buchholz, "higher sum of opponents' total points"),
        Criterion(
            "median_buchholz",
            True,
            False,
            median_buchholz,
            "buchholz without the highest and lowest game (with 3+ games)",
        ),
        Criterion(
            "sonneborn_berger",
            True,
            False,
            sonneborn_berger,
            "sum of beaten opponents' points plus half of drawn opponents' points",
        ),
        Criterion(
            "opponent_win_pct",
            True,
            False,
            opponent_win_pct,
            "higher mean of opponents' win ratios; no opponents = N/A",
        ),
        Criterion("tiebreak_value", True, False, tiebreak_value, "higher random value drawn at the start"),
        Criterion(
            "dice",
            True,
            True,
            dice,
            "a roll from the event seed made when the tie is met, recorded; always separates",
        ),
    )
}


def chain_problems(names: Any, loc: tuple[str | int, ...] = ("tiebreaks",)) -> list[Problem]:
    """Problems of a tie-break chain as given in settings (a list of criterion names)."""
    if not isinstance(names, list | tuple):
        return [Problem(loc, "must be a list of criterion names")]
    problems = []
    seen: set[str] = set()
    for i, name in enumerate(names):
        if not isinstance(name, str):
            problems.append(Problem((*loc, i), "must be a criterion name"))
        elif name not in CRITERIA:
            problems.append(Problem((*loc, i), f"unknown criterion {name!r}"))
        elif name in seen:
            problems.append(Problem((*loc, i), f"criterion {name!r} appears twice"))
        else:
            seen.add(name)
    return problems


def build_chain(names: Sequence[str]) -> tuple[Criterion, ...]:
    """The criteria of a chain, in order; ``InvalidInput`` for unknown or repeated names."""
    problems = chain_problems(list(names) if not isinstance(names, str) else names)
    if problems:
        raise InvalidInput("invalid tie-break chain", problems)
    return tuple(CRITERIA[n] for n in names)


def describe() -> Mapping[str, str]:
    """Criterion name → one-line description with its direction."""
    return {c.name: f"({'more' if c.higher_is_better else 'less'}) {c.summary}" for c in CRITERIA.values()}
