"""Standings: ranking basis, then the tie-break chain, with the reason for every split
(formats.md "Scoring schemes" — ranking basis — and "Tie-break criteria"; bga-round-robin.md
"Ranking"; titan-arena.md "Seeding"; api.md ``GET /v1/events/{id}/standings`` and "Event settings").

Entries sort by the basis (``total`` points or ``average`` points per game), then each criterion of
the chain is applied in turn to the groups still tied (recursive refinement: a group-dependent
criterion such as ``head_to_head`` sees exactly the entries still tied at that point). The first
level that separates a row from the row above is its ``decided_by``; entries still equal after the
whole chain share a rank (1, 2, 2, 4). ``StandingsLedger`` keeps one event's aggregation for its next
change and folds in only the games that changed, with the same answer as ``compute_standings``.

Rulings where the spec is silent:
- ``points`` on a row is the total (bye points included); ``games`` counts games played (no byes,
  no voids). With basis ``average`` the basis is (points − bye points) / games: byes are left out of
  numerator and denominator, since a bye is not a game played. An entry with no game has no average
  (N/A) and ranks below every entry that has one.
- ``decided_by`` is ``"points"`` (basis ``total``) or ``"average"`` when the basis itself separates.
- ``tiebreaks`` on a row holds a value for every criterion of the chain: entry-only criteria are
  computed for everyone; ``head_to_head`` and ``dice`` hold the value of the group where they were
  applied, ``None`` when the entry was never in a tie that reached them (or N/A).
- Rows sharing a rank are listed by name, then entry id; every other order comes from the input
  sorted canonically (entries by id, games by match id), so input order never matters.
- Dropped or withdrawn entries stay in the standings with their results and their ``status``.
- Games may be filtered by ``stage``; a game naming an entry not in ``entries`` is invalid input,
  as is a duplicate entry id or match id.
- Defaults of the settings this module owns: ``ranking_basis`` ``total``, ``tiebreaks`` empty
  (ties share a rank), ``h2h_default`` 0.5; scoring defaults are in scoring.py.
"""

from __future__ import annotations

import gc
import math
from bisect import bisect_left, insort
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.scoring import (
    DRAW,
    WIN,
    GameResult,
    ScoredGame,
    ScoringConfig,
    game_problems,
    parse_scoring,
    score_game,
)
from app.core.tiebreaks import Criterion, EntryStats, Ledger, Value, build_chain, chain_problems
from app.core.vocabulary import Outcome

BASES = ("total", "average")
OWN_KEYS = ("scoring", "violation_points", "victim_points", "ranking_basis", "tiebreaks", "h2h_default")


@dataclass(frozen=True)
class EntryInfo:
    entry_id: str
    name: str
    tiebreak_value: float | None = None
    status: str = "active"


@dataclass(frozen=True)
class StandingsConfig:
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    ranking_basis: str = "total"
    tiebreaks: tuple[str, ...] = ()
    h2h_default: float = 0.5


@dataclass(frozen=True)
class StandingRow:
    rank: int
    entry_id: str
    name: str
    points: float
    games: int
    wins: int
    differential: float
    tiebreaks: dict[str, Value]
    decided_by: str | None
    status: str
    average: float | None = None
    byes: int = 0
    draws: int = 0
    losses: int = 0


def _parse(settings: Mapping[str, Any]) -> tuple[StandingsConfig, list[Problem]]:
    scoring, problems = parse_scoring(settings)
    basis = settings.get("ranking_basis", "total")
    if basis is None:
        basis = "total"
    if basis not in BASES:
        msg = f"unknown ranking basis {basis!r}; one of total, average"
        problems.append(Problem(("ranking_basis",), msg))
        basis = "total"
    names = settings.get("tiebreaks", [])
    if names is None:
        names = []
    chain = chain_problems(names)
    problems.extend(chain)
    h2h = settings.get("h2h_default", 0.5)
    if h2h is None:
        h2h = 0.5
    if isinstance(h2h, bool) or not isinstance(h2h, int | float) or not math.isfinite(h2h):
        problems.append(Problem(("h2h_default",), "must be a finite number"))
        h2h = 0.5
    tiebreaks = tuple(names) if not chain else ()
    return StandingsConfig(scoring, basis, tiebreaks, float(h2h)), problems


def settings_problems(
    settings: Mapping[str, Any],
    prefix: tuple[str | int, ...] = (),
    keys: Sequence[str] = OWN_KEYS,
) -> list[Problem]:
    """Every problem in the settings keys this engine owns, each ``loc`` prefixed by ``prefix``.

    ``keys`` narrows the report to some of ``OWN_KEYS`` (e.g. ``("scoring", "tiebreaks")`` when the
    caller already checks the plain numeric keys itself). Other settings keys are ignored.
    """
    if not isinstance(settings, Mapping):
        return [Problem(prefix, "must be an object")]
    _, problems = _parse(settings)
    return [Problem((*prefix, *p.loc), p.msg) for p in problems if p.loc and p.loc[0] in keys]


def standings_config(settings: Mapping[str, Any]) -> StandingsConfig:
    """The standings config of event settings (the keys of ``OWN_KEYS``; other keys are ignored).

    Raises ``InvalidInput`` listing every problem with its location (e.g. ``("tiebreaks", 2)``).
    """
    config, problems = _parse(settings)
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the standings settings", problems)
    return config


# --------------------------------------------------------------------------- aggregation


def _problems(entries: Sequence[EntryInfo], games: Sequence[GameResult]) -> list[Problem]:
    """Every problem of the input: a duplicate entry or match id, a malformed game, an unknown entry."""
    problems: list[Problem] = []
    known: set[str] = set()
    for i, entry in enumerate(entries):
        if entry.entry_id in known:
            problems.append(Problem(("entries", i, "entry_id"), f"duplicate entry {entry.entry_id!r}"))
        known.add(entry.entry_id)
    match_ids: set[str] = set()
    for i, game in enumerate(games):
        problems.extend(game_problems(game, ("games", i)))
        if game.match_id in match_ids:
            problems.append(Problem(("games", i, "match_id"), f"duplicate match {game.match_id!r}"))
        match_ids.add(game.match_id)
        for j, reported in enumerate(game.seats):
            if reported.entry_id not in known:
                msg = f"unknown entry {reported.entry_id!r}"
                problems.append(Problem(("games", i, "seats", j, "entry_id"), msg))
    return problems


def build_ledger(
    entries: Sequence[EntryInfo],
    games: Sequence[GameResult],
    config: StandingsConfig,
    seed: str = "",
    scored_out: dict[str, ScoredGame | None] | None = None,
) -> Ledger:
    """Validate the input and aggregate it once per entry (``scored_out``, when given, receives
    every game scored, by match id: ``None`` for a void)."""
    problems = _problems(entries, games)
    if problems:
        raise InvalidInput("invalid results", problems)
    stats = {entry.entry_id: EntryStats(entry.entry_id, entry.tiebreak_value) for entry in entries}
    # match ids are unique, so this is a canonical order: float sums never depend on input order
    ordered = sorted(games, key=attrgetter("match_id"))
    counted: list[ScoredGame] = []
    scoring = config.scoring
    for game in ordered:
        scored = score_game(game, scoring)
        if scored_out is not None:
            scored_out[game.match_id] = scored
        if scored is not None and _count(scored, stats):
            counted.append(scored)
    return Ledger(stats, counted, config.h2h_default, seed)


def _count(scored: ScoredGame, stats: Mapping[str, EntryStats], only: str | None = None) -> bool:
    """Add one scored game to the stats of its entries (``only``: of that one entry alone); whether
    it is a counted game (not a bye). Each entry's sums are folded in match id order, by
    ``build_ledger`` and by ``StandingsLedger`` alike, so both give the same floats."""
    entries_at = scored.entries
    pts = scored.points
    if scored.outcome == Outcome.BYE:
        s = stats[entries_at[0]]
        s.points += pts[0]
        s.bye_points += pts[0]
        s.byes += 1
        return False
    diffs = scored.differentials
    results = scored.results
    two = len(entries_at) == 2
    for si, e in enumerate(entries_at):
        if only is not None and e != only:
            continue
        s = stats[e]
        others = (entries_at[1 - si],) if two else entries_at[:si] + entries_at[si + 1 :]
        s.meetings.append((others, pts[si]))
        s.points += pts[si]
        s.differential += diffs[si]
        s.games += 1
        r = results[si]
        if r == WIN:
            s.wins += 1
        elif r == DRAW:
            s.draws += 1
        else:
            s.losses += 1
    if scored.outcome == Outcome.PLAYED:
        _place_stats(scored, stats, only)
    return True


def _place_stats(scored: ScoredGame, stats: Mapping[str, EntryStats], only: str | None) -> None:
    """Seconds and points behind the winner, from a played game's recorded places and scores."""
    places = scored.places
    if places is None:
        return
    scores = scored.scores
    firsts = [scores[i] for i, p in enumerate(places) if p == 1]
    top = max(firsts) if None not in firsts else None  # type: ignore[type-var]
    for si, e in enumerate(scored.entries):
        if only is not None and e != only:
            continue
        s = stats[e]
        place = places[si]
        if place == 2:
            s.seconds += 1
        own = scores[si]
        if top is not None and own is not None:
            behind = 0.0 if place == 1 else top - own
            s.behind_all = (s.behind_all or 0.0) + behind
            if place == 2:
                s.behind_seconds = (s.behind_seconds or 0.0) + behind


# --------------------------------------------------------------------------- ranking


def _basis_key(basis: str, s: EntryStats) -> tuple[int, float]:
    value = s.points if basis == "total" else s.average
    if value is None:
        return (1, 0.0)
    return (0, -(round(value, 9) + 0.0))


def _split(members: list[str], keyed: dict[str, Any]) -> list[list[str]]:
    """Sort members by key (stable) and cut into runs of equal keys."""
    members = sorted(members, key=keyed.__getitem__)
    groups: list[list[str]] = []
    last: Any = object()
    for e in members:
        k = keyed[e]
        if groups and k == last:
            groups[-1].append(e)
        else:
            groups.append([e])
            last = k
    return groups


def compute_standings(
    entries: Sequence[EntryInfo],
    games: Sequence[GameResult],
    config: StandingsConfig,
    seed: str = "",
    stage: str | None = None,
) -> list[StandingRow]:
    """The ranked standings of ``entries`` after ``games`` (only those of ``stage`` when given)."""
    # Pure computation that allocates a few hundred thousand small objects: the cyclic garbage
    # collector would rescan the growing heap many times over (2-3x the run time), and none of
    # these objects form cycles, so it is paused for the call and restored afterwards.
    with _collector_paused():
        return _compute(entries, games, config, seed, stage)


def _compute(
    entries: Sequence[EntryInfo],
    games: Sequence[GameResult],
    config: StandingsConfig,
    seed: str,
    stage: str | None,
) -> list[StandingRow]:
    chain = _chain(config)
    if stage is not None:
        games = [g for g in games if g.stage == stage]
    return _rank(build_ledger(entries, games, config, seed), entries, config, chain)


def _chain(config: StandingsConfig) -> tuple[Criterion, ...]:
    """The config's tie-break chain; ``InvalidInput`` for an unknown criterion or ranking basis."""
    chain: tuple[Criterion, ...] = build_chain(config.tiebreaks)
    if config.ranking_basis not in BASES:
        msg = f"unknown ranking basis {config.ranking_basis!r}"
        raise InvalidInput("invalid ranking basis", [Problem(("ranking_basis",), msg)])
    return chain


def _rank(
    ledger: Ledger, entries: Sequence[EntryInfo], config: StandingsConfig, chain: tuple[Criterion, ...]
) -> list[StandingRow]:
    """The ranked rows of an aggregated event (reads the ledger's stats, fills its criteria cache)."""
    info = {e.entry_id: e for e in entries}
    ids = sorted(info)

    values: dict[str, dict[str, Value]] = {e: {} for e in ids}
    for crit in chain:
        if crit.group_dependent:
            for e in ids:
                values[e][crit.name] = None
        else:
            for e, v in crit.fn(ledger, ids).items():
                values[e][crit.name] = v

    final_groups: list[tuple[list[str], str | None]] = []

    def refine(group: list[str], level: int, reason: str | None) -> None:
        """Split a tied group by chain[level]; ``reason`` is what separated it from the group above."""
        if len(group) == 1 or level == len(chain):
            final_groups.append((group, reason))
            return
        crit = chain[level]
        if crit.group_dependent:
            for e, v in crit.fn(ledger, group).items():
                values[e][crit.name] = v
        keyed = {e: crit.sort_key(values[e][crit.name]) for e in group}
        for i, sub in enumerate(_split(group, keyed)):
            refine(sub, level + 1, reason if i == 0 else crit.name)

    basis = config.ranking_basis
    basis_label = "points" if basis == "total" else "average"
    basis_keys = {e: _basis_key(basis, ledger.stats[e]) for e in ids}
    for i, group in enumerate(_split(ids, basis_keys)):
        refine(group, 0, None if i == 0 else basis_label)

    rows: list[StandingRow] = []
    stats = ledger.stats
    position = 0
    for group, reason in final_groups:
        rank = position + 1
        if len(group) > 1:
            group = sorted(group, key=lambda x: (info[x].name, x))
        for k, e in enumerate(group):
            s = stats[e]
            about = info[e]
            # positional (the fields' order): keywords would cost a dict per row
            rows.append(
                StandingRow(
                    rank,
                    e,
                    about.name,
                    s.points,
                    s.games,
                    s.wins,
                    s.differential,
                    values[e],
                    reason if k == 0 else None,
                    about.status,
                    s.average,
                    s.byes,
                    s.draws,
                    s.losses,
                )
            )
        position += len(group)
    return rows


# --------------------------------------------------------------------------- the kept ledger


class StandingsLedger:
    """One event's aggregation kept for the next change (docs/architecture.md "The standings
    cache"): its input, every game scored, and each entry's stats. ``update`` takes the whole input
    again and folds in only the games that differ from the kept ones (a new result, a correction =
    the old game taken out and the new one added, a game gone); ``apply`` takes that difference
    from a caller that found it more cheaply; ``standings()`` then ranks. The
    answer is always ``compute_standings`` of the input last given, float for float: an entry that
    a changed game seats has its stats folded again from its own games in match id order, as
    ``build_ledger`` folds them, and every other entry's stats are untouched, as a clean fold would
    leave them. The criteria that read opponents' totals are recomputed over every counted game at
    each ranking (a pass over the games, without scoring any).

    ``update`` and ``apply`` refuse (return False, nothing changed) whatever is not a change of games: other
    entries (added, renamed, dropped: any field), another config or seed, and any game that a clean
    computation would reject (the caller computes cleanly, which raises the problem)."""

    def __init__(
        self,
        entries: Sequence[EntryInfo],
        games: Sequence[GameResult],
        config: StandingsConfig,
        seed: str = "",
    ) -> None:
        self.chain = _chain(config)
        self.entries = tuple(entries)
        self.config = config
        self.seed = seed
        self.scored: dict[str, ScoredGame | None] = {}
        with _collector_paused():
            self.ledger = build_ledger(entries, games, config, seed, self.scored)
        self.games = {g.match_id: g for g in games}
        self.tiebreak_values = {e.entry_id: e.tiebreak_value for e in entries}
        # each entry's games (counted ones and byes) and the counted games, by match id, in order
        self.at: dict[str, list[str]] = {e.entry_id: [] for e in entries}
        for mid in sorted(self.scored):
            scored = self.scored[mid]
            if scored is not None:
                for e in scored.entries:
                    self.at[e].append(mid)
        self.counted = [g.match_id for g in self.ledger.games]

    def __len__(self) -> int:
        """The games kept (what the ledger's memory grows with)."""
        return len(self.games)

    def update(
        self,
        entries: Sequence[EntryInfo],
        games: Sequence[GameResult],
        config: StandingsConfig,
        seed: str = "",
    ) -> bool:
        """Bring the ledger to this input by the games that differ from the kept ones; False (the
        ledger unchanged) when anything else differs or a changed game is invalid: then compute
        afresh."""
        kept = self.games
        given: set[str] = set()
        changed: list[GameResult] = []
        present = 0  # games given that the ledger holds (changed or not)
        for g in games:
            mid = g.match_id
            if mid in given:
                return False
            given.add(mid)
            old = kept.get(mid)
            if old is None:
                changed.append(g)
                continue
            present += 1
            if old is not g and old != g:
                changed.append(g)
        gone = [mid for mid in kept if mid not in given] if present < len(kept) else []
        return self.apply(entries, changed, gone, config, seed)

    def apply(
        self,
        entries: Sequence[EntryInfo],
        changed: Sequence[GameResult],
        gone: Sequence[str],
        config: StandingsConfig,
        seed: str = "",
    ) -> bool:
        """Bring the ledger to this input given as its difference from the kept one: the games
        ``changed`` (new ones, or new versions of kept ones) and the match ids of the kept games
        ``gone``. False (the ledger unchanged) when the entries, config or seed differ, or the
        difference does not fit the kept games or holds an invalid game."""
        if config != self.config or seed != self.seed or tuple(entries) != self.entries:
            return False
        if not changed and not gone:
            return True
        known = self.at
        ids = {g.match_id for g in changed}
        if len(ids) < len(changed) or any(mid in ids or mid not in self.games for mid in gone):
            return False
        for g in changed:
            if game_problems(g) or any(s.entry_id not in known for s in g.seats):
                return False
        with _collector_paused():
            self._fold(changed, gone)
        return True

    def _fold(self, changed: Sequence[GameResult], gone: Sequence[str]) -> None:
        touched: set[str] = set()
        for mid in [*gone, *(g.match_id for g in changed)]:
            old = self.scored.pop(mid, None)
            if old is None:
                continue
            for e in old.entries:
                self.at[e].remove(mid)
                touched.add(e)
            if old.outcome != Outcome.BYE:
                del self.counted[bisect_left(self.counted, mid)]
        scoring = self.config.scoring
        for g in changed:
            scored = self.scored[g.match_id] = score_game(g, scoring)
            if scored is None:
                continue
            for e in scored.entries:
                insort(self.at[e], g.match_id)
                touched.add(e)
            if scored.outcome != Outcome.BYE:
                insort(self.counted, g.match_id)
        for mid in gone:
            del self.games[mid]
        for g in changed:
            self.games[g.match_id] = g
        stats = self.ledger.stats
        for e in touched:
            stats[e] = EntryStats(e, self.tiebreak_values[e])
            for mid in self.at[e]:
                _count(self.scored[mid], stats, e)  # type: ignore[arg-type]
        self.ledger.games = [self.scored[mid] for mid in self.counted]  # type: ignore[misc]
        self.ledger.cache.clear()

    def standings(self) -> list[StandingRow]:
        """The ranked standings of the input last given."""
        with _collector_paused():
            return _rank(self.ledger, self.entries, self.config, self.chain)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (see ``compute_standings``), restored afterwards."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


__all__ = [
    "EntryInfo",
    "StandingRow",
    "StandingsConfig",
    "StandingsLedger",
    "build_ledger",
    "compute_standings",
    "settings_problems",
    "standings_config",
]
